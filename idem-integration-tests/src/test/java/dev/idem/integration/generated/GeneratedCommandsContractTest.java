package dev.idem.integration.generated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.integration.generated.ShopCommands.Channel;
import dev.idem.integration.generated.ShopCommands.Customer;
import dev.idem.integration.generated.ShopCommands.Order;
import dev.idem.integration.generated.ShopCommands.OutOfStockException;
import dev.idem.integration.generated.ShopCommands.Parcel;
import dev.idem.integration.generated.ShopCommands.Quote;
import dev.idem.integration.generated.ShopCommands.Receipt;
import dev.idem.integration.generated.ShopCommands.Reservation;
import dev.idem.integration.generated.ShopCommands.Settlement;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The generated {@code ShopCommands_Idempotent} against a real database: the processor's output and the runtime
 * together, as users run them. The concrete subclasses pick the database.
 */
abstract class GeneratedCommandsContractTest extends DatabaseContract {

  private RecordingShop delegate;
  private ShopCommands shop;

  private IdemRuntime runtime;


  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).build();
    runtime.createSchema();
    database.execute("CREATE TABLE executions (what VARCHAR(255) NOT NULL)");
    delegate = new RecordingShop(runtime);
    shop = new ShopCommands_Idempotent(delegate, runtime);
  }

  @BeforeEach
  void clean() {
    database.execute("DELETE FROM idem_record", "DELETE FROM executions");
    runtime.clearResultCache(); // the records were deleted behind the runtime's back
    clock.set(Instant.parse("2031-05-01T10:00:00Z"));
    delegate.outOfStock = false;
    counting.reset();
  }

  /**
   * A record holding null (SQL NULL, or JSON null) for a command returning a primitive was changed by hand or by other
   * code: it replays as a broken record naming the key, never as a NullPointerException from generated code
   * unboxing it, nor as 0 (issue 26 §5.3).
   */
  @Test
  void aNullStoredForAPrimitiveResultIsABrokenRecord() throws Exception {
    Reservation reservation = new Reservation(new Order("o-null", new Customer(1, "nil")), 3);
    assertEquals(3, shop.reserve(reservation));
    for (String stored : List.of("NULL", "'null'")) {
      database.execute("UPDATE idem_record SET result = " + stored);
      runtime.clearResultCache(); // replay from the table
      IdempotencyBrokenRecordException e =
          assertThrows(IdempotencyBrokenRecordException.class, () -> shop.reserve(reservation), stored);
      assertEquals("o-null", e.key());
      assertTrue(e.getMessage().contains("int"), e.getMessage());
    }
    assertEquals(1, delegate.executions(), "the delegate never ran again");
  }

  @Test
  void everyReturnShapeIsReplayedTypedWithoutRunningTheDelegateAgain() throws Exception {
    UUID refundId = UUID.randomUUID();
    Order order = new Order("o-1", new Customer(7, "ada"));

    for (int round = 0; round < 3; round++) {
      assertEquals(new Receipt("p-r1", 500, List.of("a", "b")), shop.pay("r1", 500, List.of("a", "b")));
      List<Receipt> refunds = shop.refunds(refundId, Channel.WEB);
      assertEquals(2, refunds.size());
      assertEquals(new Receipt("r2-WEB", 200, List.of("x")), refunds.get(1));
      assertEquals(Optional.of(new Customer(4, "c4")), shop.findCustomer(4));
      assertEquals(Optional.empty(), shop.findCustomer(5));
      assertEquals(Map.of("espresso", 3, "filter", 0), shop.stock(order));
      assertEquals(2, shop.reserve(new Reservation(order, 2)));
      shop.ship("s-1", Channel.MOBILE);
      assertNull(shop.nothing("n-1"));
    }

    assertEquals(8, shop.executions(), "each command ran once; the two retries were replays");
  }

  /**
   * Sealed and constructor-built results through generated code and the table (the cache is cleared before every
   * retry): each retry, equal but sent with another set order and another BigDecimal scale, replays exactly the
   * first result, as exactly the subtype it was.
   */
  @Test
  void sealedAndConstructorBuiltResultsReplayExactlyFromTheTableForEqualRetries() {
    Settlement accepted = shop.settle("st-1", new BigDecimal("12.5"), true);
    Settlement declined = shop.settle("st-2", new BigDecimal("99"), false);
    Quote quote = shop.quote("q-1", orderedSet("espresso", "filter", "decaf"), new BigDecimal("2.10"));
    Parcel letter = shop.pack("pk-1", 120, List.of("card"));
    Parcel box = shop.pack("pk-2", 2400, List.of("mug", "beans"));
    assertEquals(new Settlement.Accepted("s-st-1", new BigDecimal("12.5")), accepted);
    assertEquals(new Quote(new BigDecimal("6.30"), Set.of("espresso", "filter", "decaf")), quote);

    for (int retry = 0; retry < 2; retry++) {
      runtime.clearResultCache(); // replay from the table, not from memory
      Settlement acceptedAgain = shop.settle("st-1", new BigDecimal("12.50"), true);
      assertInstanceOf(Settlement.Accepted.class, acceptedAgain);
      assertEquals(accepted, acceptedAgain);
      // The stored scale is the first result's, not the retry's: a replay returns what the first call returned.
      assertEquals("12.5", ((Settlement.Accepted) acceptedAgain).amount().toPlainString());

      Settlement declinedAgain = shop.settle("st-2", new BigDecimal("99.000"), false);
      assertInstanceOf(Settlement.Declined.class, declinedAgain);
      assertEquals(declined, declinedAgain);

      Quote quoteAgain = shop.quote("q-1", orderedSet("decaf", "filter", "espresso"), new BigDecimal("2.1"));
      assertEquals(quote, quoteAgain);
      assertEquals("6.30", quoteAgain.getTotal().toPlainString());

      Parcel letterAgain = shop.pack("pk-1", 120, List.of("card"));
      assertInstanceOf(Parcel.Letter.class, letterAgain);
      assertEquals(letter, letterAgain);
      Parcel boxAgain = shop.pack("pk-2", 2400, List.of("mug", "beans"));
      assertInstanceOf(Parcel.Box.class, boxAgain);
      assertEquals(box, boxAgain);
      assertEquals(List.of("mug", "beans"), ((Parcel.Box) boxAgain).contents());
    }
    assertEquals(5, shop.executions(), "each command ran once; every retry replayed its record");

    // A really different payload is still rejected, from the table as from the cache.
    runtime.clearResultCache();
    assertThrows(IdempotencyKeyReusedException.class, () -> shop.settle("st-1", new BigDecimal("12.51"), true));
    assertThrows(IdempotencyKeyReusedException.class,
        () -> shop.quote("q-1", orderedSet("espresso", "filter"), new BigDecimal("2.10")));
    assertThrows(IdempotencyKeyReusedException.class, () -> shop.pack("pk-2", 2400, List.of("beans", "mug")));
    assertEquals(5, shop.executions());
  }

  private static Set<String> orderedSet(String... items) {
    return new LinkedHashSet<>(List.of(items));
  }

  @Test
  void aDifferentPayloadUnderTheSameKeyIsRejectedAndChangesNothing() {
    shop.pay("r2", 100, List.of());
    IdempotencyKeyReusedException e =
        assertThrows(IdempotencyKeyReusedException.class, () -> shop.pay("r2", 999, List.of()));
    assertEquals("dev.idem.integration.generated.ShopCommands.pay", e.scope());
    assertEquals(1, shop.executions());
    assertEquals(new Receipt("p-r2", 100, List.of()), shop.pay("r2", 100, List.of()));
  }

  @Test
  void aPathKeyPartIsNavigatedNullSafelyAndValidatedBeforeAnyDatabaseAccess() {
    InvalidIdempotencyKeyException nullPart = assertThrows(InvalidIdempotencyKeyException.class,
        () -> shop.stock(new Order("o-2", null)));
    assertEquals(KeyRule.NULL_PART, nullPart.rule());
    assertTrue(nullPart.getMessage().contains("'order.customer.name'"), nullPart.getMessage());

    InvalidIdempotencyKeyException illegal = assertThrows(InvalidIdempotencyKeyException.class,
        () -> shop.pay("has space", 1, List.of()));
    assertEquals(KeyRule.ILLEGAL_CHARACTER, illegal.rule());

    assertEquals(0, counting.connectionsObtained(), "validation happens before any connection is taken");
  }

  @Test
  void aCheckedExceptionReachesTheCallerUnchangedRollsBackAndTheRetryRunsAgain() throws Exception {
    Reservation reservation = new Reservation(new Order("o-3", new Customer(1, "bo")), 5);
    delegate.outOfStock = true;
    OutOfStockException thrown = assertThrows(OutOfStockException.class, () -> shop.reserve(reservation));
    assertEquals("no stock for o-3", thrown.getMessage());
    assertEquals(0, shop.executions(), "the delegate's write was rolled back with the claim");

    delegate.outOfStock = false;
    assertEquals(5, shop.reserve(reservation));
    assertEquals(5, shop.reserve(reservation));
    assertEquals(1, shop.executions());
  }

  @Test
  void pastItsRetentionAKeyRunsAnew() {
    UUID refundId = UUID.randomUUID();
    shop.refunds(refundId, Channel.WEB);
    clock.advance(Duration.ofMinutes(59));
    shop.refunds(refundId, Channel.WEB);
    assertEquals(1, shop.executions());

    clock.advance(Duration.ofMinutes(2)); // retention = "PT1H"
    shop.refunds(refundId, Channel.WEB);
    assertEquals(2, shop.executions());
  }

  @Test
  void concurrentDuplicatesRunTheDelegateOncePerKey() throws Exception {
    int threads = 32;
    int keys = 100;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<List<Receipt>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        results.add(pool.submit(() -> {
          start.await();
          List<Receipt> seen = new ArrayList<>();
          for (int i = 0; i < keys; i++) {
            int k = (i + offset) % keys; // threads walk the keys in different orders
            seen.add(shop.pay("k-" + k, k, List.of("t")));
          }
          return seen;
        }));
      }
      start.countDown();
      for (Future<List<Receipt>> result : results) {
        for (Receipt receipt : result.get(120, TimeUnit.SECONDS)) {
          long k = receipt.amountCents();
          assertEquals(new Receipt("p-k-" + k, k, List.of("t")), receipt);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(keys, shop.executions());
    assertEquals(keys, distinctExecutions(), "exactly one execution per key");
  }

  private long distinctExecutions() throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
         Statement statement = connection.createStatement();
         ResultSet rows = statement.executeQuery("SELECT COUNT(DISTINCT what) FROM executions")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  @Test
  void theRecordAndTheBusinessWriteShareOneConnectionAndOneCommit() {
    counting.reset();
    shop.ship("s-9", Channel.WEB);
    assertEquals(1, counting.connectionsObtained());
    assertSame(ShopCommands_Idempotent.class, shop.getClass());
  }
}
