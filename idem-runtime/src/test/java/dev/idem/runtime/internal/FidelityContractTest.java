package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyBrokenRecordException;
import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyResultShapeException;
import dev.idem.runtime.IdempotencyResultTooLargeException;
import dev.idem.runtime.IdempotencyScopeConflictException;
import dev.idem.testing.DatabaseContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replay fidelity against a real database: the connection lent to the body cannot end idem's transaction, two
 * commands cannot share a scope, results over the size limit leave nothing behind, a null result is stored as JSON
 * null and a record without its result replays as a clear exception. Runs on every database through the concrete
 * subclasses.
 */
abstract class FidelityContractTest extends DatabaseContract {

  record Receipt(String paymentId, long amountCents) {}

  private static final CommandSpec<Receipt> PAY = CommandSpec.builder("Fidelity.pay", ResultType.of(Receipt.class))
      .keyParts("id").build();
  private static final CommandSpec<Integer> COUNT = CommandSpec.builder("Fidelity.count", ResultType.of(int.class))
      .keyParts("id").build();
  private static final CommandSpec<String> TEXT = CommandSpec.builder("Fidelity.text", ResultType.of(String.class))
      .keyParts("id").build();
  private static final CommandSpec<String> CLAIM_TEXT = CommandSpec.builder("Fidelity.claimText",
      ResultType.of(String.class)).mode(Mode.CLAIM).keyParts("id").build();

  private static final CommandSpec<Void> NOTE = CommandSpec.builder("Fidelity.note", ResultType.VOID)
      .keyParts("id").build();

  private static final int MAX_RESULT = 300;
  private static final AtomicInteger DDL_TABLES = new AtomicInteger();

  private IdemRuntime runtime;
  private IdemEngine idem;

  @Override
  protected void prepare() {
    runtime = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).maxResultSize(MAX_RESULT).build();
    idem = IdemEngine.of(runtime);
    runtime.createSchema();
    database.execute("CREATE TABLE payments (id VARCHAR(64) NOT NULL PRIMARY KEY)");
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM idem_record", "DELETE FROM payments");
    clock.set(Instant.parse("2030-01-01T00:00:00Z"));
    runtime.clearResultCache();
  }

  private void insertPayment(String id) throws SQLException {
    try (PreparedStatement insert = runtime.currentConnection().prepareStatement(
        "INSERT INTO payments (id) VALUES (?)")) {
      insert.setString(1, id);
      insert.executeUpdate();
    }
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private String storedResult(String key) {
    return stored("result", key);
  }

  private String stored(String column, String key) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select = connection.prepareStatement(
            "SELECT " + column + " FROM idem_record WHERE idem_key = ?")) {
      select.setString(1, key);
      try (ResultSet rs = select.executeQuery()) {
        assertTrue(rs.next(), "no record of " + key);
        return rs.getString(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long records() {
    return count("SELECT COUNT(*) FROM idem_record");
  }

  private long payments() {
    return count("SELECT COUNT(*) FROM payments");
  }

  // ---- the borrowed connection

  private interface ConnectionMisuse {
    void apply(Connection connection) throws SQLException;
  }

  @Test
  void theBorrowedConnectionCannotEndIdemsTransaction() {
    List<ConnectionMisuse> misuses = List.of(Connection::commit, Connection::rollback,
        c -> c.setAutoCommit(true), c -> c.setAutoCommit(false), c -> c.abort(Runnable::run));
    int n = 0;
    for (ConnectionMisuse misuse : misuses) {
      String key = "misuse-" + n++;
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> idem.execute(PAY, new Object[] {key}, new Object[0], () -> {
            insertPayment(key);
            misuse.apply(runtime.currentConnection());
            return new Receipt(key, 1);
          }));
      assertTrue(e.getMessage().contains("is not allowed on the connection of an idem transaction"), e.getMessage());
    }
    assertEquals(0, records(), "the claims rolled back with the bodies");
    assertEquals(0, payments());
    IllegalStateException inWork = assertThrows(IllegalStateException.class,
        () -> runtime.runInTransaction(Connection::commit));
    assertTrue(inWork.getMessage().startsWith("commit() is not allowed"), inWork.getMessage());
  }

  @Test
  void closingTheBorrowedConnectionIsHarmlessAndSavepointsWork() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Receipt receipt = idem.execute(PAY, new Object[] {"close-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      try (Connection connection = runtime.currentConnection()) { // a habit, not a mistake
        insertPayment("a");
      }
      Connection connection = runtime.currentConnection();
      assertSame(connection, connection.unwrap(Connection.class));
      Savepoint beforeB = connection.setSavepoint();
      insertPayment("b");
      connection.rollback(beforeB);
      insertPayment("c");
      return new Receipt("close-1", 2);
    });
    assertEquals(new Receipt("close-1", 2), receipt);
    assertEquals(1, records());
    assertEquals(List.of(1L, 0L, 1L), List.of(count("SELECT COUNT(*) FROM payments WHERE id = 'a'"),
        count("SELECT COUNT(*) FROM payments WHERE id = 'b'"), count("SELECT COUNT(*) FROM payments WHERE id = 'c'")));
    runtime.clearResultCache();
    assertEquals(receipt, idem.execute(PAY, new Object[] {"close-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return null;
    }));
    assertEquals(1, calls.get());
  }

  // ---- scopes

  @Test
  void twoDifferentCommandsCannotShareAScope() {
    CommandSpec<String> first = CommandSpec.builder("Fidelity.shared", ResultType.of(String.class))
        .keyParts("id").declaredBy("a.Payments#pay").build();
    CommandSpec<String> sameAgain = CommandSpec.builder("Fidelity.shared", ResultType.of(String.class))
        .keyParts("id").declaredBy("a.Payments#pay").build();
    CommandSpec<String> otherInterface = CommandSpec.builder("Fidelity.shared", ResultType.of(String.class))
        .keyParts("id").declaredBy("b.Payments#pay").build();
    CommandSpec<Receipt> otherResult = CommandSpec.builder("Fidelity.shared", ResultType.of(Receipt.class))
        .keyParts("id").build();
    CommandSpec<String> otherKey = CommandSpec.builder("Fidelity.shared", ResultType.of(String.class))
        .keyParts("orderId").build();
    assertEquals("a", idem.execute(first, new Object[] {"k"}, new Object[0], () -> "a"));
    assertEquals("a", idem.execute(sameAgain, new Object[] {"k"}, new Object[0], () -> "never"));
    AtomicInteger calls = new AtomicInteger();
    for (CommandSpec<?> other : List.of(otherInterface, otherResult, otherKey)) {
      IdempotencyScopeConflictException e = assertThrows(IdempotencyScopeConflictException.class,
          () -> idem.execute(other, new Object[] {"k2"}, new Object[0], () -> {
            calls.incrementAndGet();
            return null;
          }));
      assertEquals("Fidelity.shared", e.scope());
      assertTrue(e.getMessage().contains("a.Payments#pay"), e.getMessage());
    }
    assertEquals(0, calls.get());
    assertEquals(1, records());
  }

  // ---- size

  @Test
  void aResultOverTheLimitLeavesNothingBehind() {
    String big = "x".repeat(MAX_RESULT);
    IdempotencyResultTooLargeException e = assertThrows(IdempotencyResultTooLargeException.class,
        () -> idem.execute(TEXT, new Object[] {"big"}, new Object[0], () -> {
          insertPayment("big");
          return big;
        }));
    assertEquals(MAX_RESULT + 2, e.size());
    assertEquals(MAX_RESULT, e.limit());
    assertEquals(0, records());
    assertEquals(0, payments());
    // Inside the caller's transaction, the command alone is undone; the caller's work goes on.
    runtime.runInTransaction(connection -> {
      insertPayment("outer");
      assertThrows(IdempotencyResultTooLargeException.class,
          () -> idem.execute(TEXT, new Object[] {"big"}, new Object[0], () -> {
            insertPayment("inner");
            return big;
          }));
    });
    assertEquals(0, records());
    assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id = 'outer'"));
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id = 'inner'"));
    // A retry that fits runs and is recorded.
    assertEquals("small", idem.execute(TEXT, new Object[] {"big"}, new Object[0], () -> "small"));
    assertEquals("\"small\"", storedResult("big"));
  }

  // ---- null and missing results

  @Test
  void aNullResultIsStoredAsJsonNullAndReplaysAsNull() {
    AtomicInteger calls = new AtomicInteger();
    assertNull(idem.execute(PAY, new Object[] {"null-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return null;
    }));
    assertEquals("null", storedResult("null-1"));
    runtime.clearResultCache();
    assertNull(idem.execute(PAY, new Object[] {"null-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return new Receipt("other", 1);
    }));
    assertNull(idem.execute(CLAIM_TEXT, new Object[] {"null-2"}, new Object[0], () -> null));
    assertEquals("null", storedResult("null-2"));
    assertEquals(1, calls.get());
  }

  @Test
  void aCompletedRecordWithoutItsResultIsAClearErrorForAnyReturnType() {
    idem.execute(PAY, new Object[] {"broken-1"}, new Object[0], () -> new Receipt("p", 1));
    idem.execute(COUNT, new Object[] {"broken-2"}, new Object[0], () -> 7);
    idem.execute(CLAIM_TEXT, new Object[] {"broken-3"}, new Object[0], () -> "t");
    database.execute("UPDATE idem_record SET result = NULL");
    runtime.clearResultCache();
    for (Runnable replay : List.<Runnable>of(
        () -> idem.execute(PAY, new Object[] {"broken-1"}, new Object[0], () -> new Receipt("again", 2)),
        () -> idem.execute(COUNT, new Object[] {"broken-2"}, new Object[0], () -> 8),
        () -> idem.execute(CLAIM_TEXT, new Object[] {"broken-3"}, new Object[0], () -> "again"))) {
      IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class, replay::run);
      assertTrue(e.getMessage().contains("SQL NULL") && e.getMessage().contains("key 'broken-"), e.getMessage());
    }
    assertEquals(3, records());
  }

  // ---- implicit commits

  /** DDL, which commits the transaction implicitly on MariaDB and H2 (PostgreSQL's DDL is transactional). */
  private void createTable() throws SQLException {
    try (Statement ddl = runtime.currentConnection().createStatement()) {
      ddl.execute("CREATE TABLE ddl_probe_" + DDL_TABLES.incrementAndGet() + " (id INT)");
    }
  }

  private boolean commitsImplicitly() {
    return SqlDialect.of(idem.dialect()).commitsImplicitly();
  }

  @Test
  void aBodyThatCommitsEarlyAndFailsLeavesABrokenRecordNotACompletedOne() {
    for (CommandSpec<?> spec : List.of(PAY, NOTE)) {
      String key = "ddl-" + spec.scope();
      RuntimeException failure = assertThrows(RuntimeException.class,
          () -> idem.execute(spec, new Object[] {key}, new Object[0], () -> {
            insertPayment(key);
            createTable();
            throw new IllegalStateException("failed after the DDL");
          }));
      assertEquals("failed after the DDL", failure.getMessage());
      AtomicInteger retries = new AtomicInteger();
      if (commitsImplicitly()) {
        // The DDL committed the claim and the first insert; the claim stays PENDING, never COMPLETED.
        assertEquals("PENDING", stored("state", key));
        assertEquals(1, count("SELECT COUNT(*) FROM payments WHERE id = '" + key + "'"));
        IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
            () -> idem.execute(spec, new Object[] {key}, new Object[0], () -> {
              retries.incrementAndGet();
              return null;
            }));
        assertTrue(e.getMessage().contains("committed before its command finished"), e.getMessage());
        assertEquals(0, retries.get(), "a half-done command is not run again");
      } else {
        assertEquals(0, records());
        assertEquals(0, payments());
      }
    }
  }

  @Test
  void aBodyThatCommitsEarlyAndSucceedsIsStillRecordedWithItsResult() {
    Receipt receipt = idem.execute(PAY, new Object[] {"ddl-ok"}, new Object[0], () -> {
      insertPayment("ddl-ok");
      createTable();
      return new Receipt("ddl-ok", 3);
    });
    idem.execute(NOTE, new Object[] {"ddl-ok-void"}, new Object[0], () -> {
      createTable();
      return null;
    });
    assertEquals("COMPLETED", stored("state", "ddl-ok"));
    assertEquals("COMPLETED", stored("state", "ddl-ok-void"));
    runtime.clearResultCache();
    assertEquals(receipt, idem.execute(PAY, new Object[] {"ddl-ok"}, new Object[0], () -> new Receipt("again", 4)));
  }

  // ---- the opt-in promise that bodies never commit implicitly

  private IdemRuntime promisingNoImplicitCommits() {
    return IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .bodiesNeverCommitImplicitly(true).build();
  }

  @Test
  void withThePromiseAVoidClaimIsItsWholeOutcomeOnEveryDatabase() {
    IdemEngine promising = IdemEngine.of(promisingNoImplicitCommits());
    AtomicInteger calls = new AtomicInteger();
    counting.reset();
    promising.execute(NOTE, new Object[] {"promise-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return null;
    });
    assertEquals(1 + OwnTransactionStatements.statementsFor(idem.dialect(), 1), counting.statementsExecuted(),
        "the claim, inserted COMPLETED, and no completing UPDATE");
    OwnTransactionStatements.assertCommitted(counting, idem.dialect(), 1);
    assertEquals("COMPLETED", stored("state", "promise-1"));
    promising.execute(NOTE, new Object[] {"promise-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return null;
    });
    assertEquals(1, calls.get());
    // Results still complete their claim: the promise changes nothing for them.
    counting.reset();
    promising.execute(PAY, new Object[] {"promise-2"}, new Object[0], () -> new Receipt("p", 1));
    assertEquals(2 + OwnTransactionStatements.statementsFor(idem.dialect(), 1), counting.statementsExecuted(),
        "claim and completion");
    OwnTransactionStatements.assertCommitted(counting, idem.dialect(), 1);
  }

  @Test
  void withoutThePromiseAVoidClaimIsCompletedInItsOwnStatementWhereDdlCommitsImplicitly() {
    counting.reset();
    idem.execute(NOTE, new Object[] {"default-1"}, new Object[0], () -> null);
    assertEquals((commitsImplicitly() ? 2 : 1) + OwnTransactionStatements.statementsFor(idem.dialect(), 1),
        counting.statementsExecuted());
    OwnTransactionStatements.assertCommitted(counting, idem.dialect(), 1);
  }

  /** The documented price of a broken promise: an early commit then a failure leaves a COMPLETED record. */
  @Test
  void aBrokenPromiseLetsAVoidBodyThatCommittedEarlyAndFailedReplayAsDone() {
    IdemRuntime promisingRuntime = promisingNoImplicitCommits();
    IdemEngine promising = IdemEngine.of(promisingRuntime);
    String key = "broken-promise";
    assertThrows(IllegalStateException.class,
        () -> promising.execute(NOTE, new Object[] {key}, new Object[0], () -> {
          try (Statement ddl = promisingRuntime.currentConnection().createStatement()) {
            ddl.execute("CREATE TABLE ddl_probe_" + DDL_TABLES.incrementAndGet() + " (id INT)");
          }
          throw new IllegalStateException("failed after the DDL");
        }));
    AtomicInteger retries = new AtomicInteger();
    promising.execute(NOTE, new Object[] {key}, new Object[0], () -> {
      retries.incrementAndGet();
      return null;
    });
    if (commitsImplicitly()) {
      assertEquals("COMPLETED", stored("state", key));
      assertEquals(0, retries.get(), "replayed as done although the first body failed");
    } else {
      assertEquals(1, retries.get(), "PostgreSQL rolled the claim back with the body: the retry runs");
    }
    promisingRuntime.close();
  }

  @Test
  void aRecordThatChangedUnderTheBodyIsNotCompletedBlindly() {
    IdempotencyBrokenRecordException e = assertThrows(IdempotencyBrokenRecordException.class,
        () -> idem.execute(PAY, new Object[] {"gone"}, new Object[0], () -> {
          try (Statement delete = runtime.currentConnection().createStatement()) {
            delete.executeUpdate("DELETE FROM idem_record WHERE idem_key = 'gone'");
          }
          insertPayment("gone");
          return new Receipt("gone", 1);
        }));
    assertTrue(e.getMessage().contains("no longer PENDING"), e.getMessage());
    assertEquals(0, records());
    assertEquals(0, payments(), "rolled back with the record it could not complete");
  }

  // ---- result shapes

  @Test
  void eachRecordStoresItsResultShapeAndAnotherShapeIsRefusedOnReplay() {
    CommandSpec<Receipt> v1 = CommandSpec.builder("Fidelity.shaped", ResultType.of(Receipt.class))
        .keyParts("id").resultShape("0123456789abcdef").build();
    idem.execute(v1, new Object[] {"shape-1"}, new Object[0], () -> new Receipt("p", 1));
    assertEquals("0123456789abcdef", stored("result_shape", "shape-1"));
    idem.execute(CLAIM_TEXT, new Object[] {"shape-2"}, new Object[0], () -> "t");
    assertEquals(CLAIM_TEXT.resultShape(), stored("result_shape", "shape-2"));
    idem.execute(NOTE, new Object[] {"shape-3"}, new Object[0], () -> null);
    assertNull(stored("result_shape", "shape-3"), "void commands have no result shape");

    // The next deploy: the result type changed shape; a new runtime (the old one would refuse the second spec).
    CommandSpec<Receipt> v2 = CommandSpec.builder("Fidelity.shaped", ResultType.of(Receipt.class))
        .keyParts("id").resultShape("fedcba9876543210").build();
    IdemRuntime next = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false).build();
    AtomicInteger calls = new AtomicInteger();
    IdempotencyResultShapeException e = assertThrows(IdempotencyResultShapeException.class,
        () -> IdemEngine.of(next).execute(v2, new Object[] {"shape-1"}, new Object[0], () -> {
          calls.incrementAndGet();
          return new Receipt("again", 2);
        }));
    assertTrue(e.getMessage().contains("Fidelity.shaped key 'shape-1'") && e.getMessage().contains("0123456789abcdef")
        && e.getMessage().contains("fedcba9876543210"), e.getMessage());
    assertEquals(0, calls.get());
    // A record written before the column existed (NULL) replays as it is.
    database.execute("UPDATE idem_record SET result_shape = NULL WHERE idem_key = 'shape-1'");
    assertEquals(new Receipt("p", 1),
        IdemEngine.of(next).execute(v2, new Object[] {"shape-1"}, new Object[0], () -> new Receipt("again", 2)));
  }

  // ---- a payload's concrete subtype is part of it

  sealed interface Adjustment permits Credit, Debit {}

  record Credit(long cents) implements Adjustment {}

  record Debit(long cents) implements Adjustment {}

  private static final CommandSpec<String> ADJUST = CommandSpec.builder("Fidelity.adjust", ResultType.of(String.class))
      .keyParts("id").payload("adjustment").build();

  @Test
  void anotherSubtypeWithEqualPropertiesUnderTheSameKeyIsAnotherPayload() {
    AtomicInteger calls = new AtomicInteger();
    assertEquals("applied Credit[cents=500]", idem.execute(ADJUST, new Object[] {"adj-1"},
        new Object[] {new Credit(500)}, () -> {
          calls.incrementAndGet();
          return "applied " + new Credit(500);
        }));
    runtime.clearResultCache();
    assertThrows(dev.idem.runtime.IdempotencyKeyReusedException.class,
        () -> idem.execute(ADJUST, new Object[] {"adj-1"}, new Object[] {new Debit(500)}, () -> {
          calls.incrementAndGet();
          return "applied debit";
        }));
    assertEquals("applied Credit[cents=500]", idem.execute(ADJUST, new Object[] {"adj-1"},
        new Object[] {new Credit(500)}, () -> "ran again"), "the equal retry still replays");
    assertEquals(1, calls.get());
  }

  // ---- a business failure replays as the class thrown, or not at all

  static class DeclinedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeclinedException(String message) {
      super(message);
    }
  }

  static final class StolenCardException extends DeclinedException {
    private static final long serialVersionUID = 1L;

    StolenCardException(String message) {
      super(message);
    }
  }

  private static final CommandSpec<String> CHARGE = CommandSpec.builder("Fidelity.charge", ResultType.of(String.class))
      .keyParts("id").payload("cents").replayOn(ReplayableFailure.of(DeclinedException.class,
          e -> new Object[] {e.getMessage()}, arguments -> new DeclinedException((String) arguments[0]), String.class))
      .build();

  @Test
  void aSubclassOfAListedFailureIsNotReplayedAsTheListedClass() {
    AtomicInteger calls = new AtomicInteger();
    CommandBody<String> stolen = () -> {
      calls.incrementAndGet();
      throw new StolenCardException("stolen card");
    };
    Object[] key = {"sc-1"};
    Object[] payload = {5};
    assertThrows(StolenCardException.class, () -> idem.execute(CHARGE, key, payload, stolen));
    // Not stored as a DeclinedException: the retry runs again and gets the class its body throws.
    assertThrows(StolenCardException.class, () -> idem.execute(CHARGE, key, payload, stolen));
    assertEquals(2, calls.get());
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'sc-1'"));
    // The listed class itself is still an outcome, replayed to the retry.
    CommandBody<String> declined = () -> {
      calls.incrementAndGet();
      throw new DeclinedException("insufficient funds");
    };
    Object[] other = {"dc-1"};
    assertThrows(DeclinedException.class, () -> idem.execute(CHARGE, other, payload, declined));
    runtime.clearResultCache();
    DeclinedException replayed =
        assertThrows(DeclinedException.class, () -> idem.execute(CHARGE, other, payload, declined));
    assertEquals("insufficient funds", replayed.getMessage());
    assertEquals(DeclinedException.class, replayed.getClass());
    assertEquals(3, calls.get());
  }

  // ---- a result is replayed as the class the method declares

  public static class Account {
    public String id;
    public String tier = "standard";

    public Account() {}

    Account(String id) {
      this.id = id;
    }
  }

  public static final class PremiumAccount extends Account {
    public PremiumAccount() {
      tier = "premium";
    }
  }

  private static final CommandSpec<Account> OPEN = CommandSpec.builder("Fidelity.open", ResultType.of(Account.class))
      .keyParts("id").build();

  @Test
  void aSubclassOfADeclaredClassIsRefusedBeforeAnythingIsStored() {
    PremiumAccount premium = new PremiumAccount();
    premium.id = "a-1";
    IdempotencyException e = assertThrows(IdempotencyException.class,
        () -> idem.execute(OPEN, new Object[] {"acct-1"}, new Object[0], () -> {
          insertPayment("acct-1");
          return premium;
        }));
    assertTrue(e.getMessage().contains("returned a " + PremiumAccount.class.getName() + " where the method declares "
        + Account.class.getName()), e.getMessage());
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'acct-1'"));
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id = 'acct-1'"), "the body's writes rolled back");
    // The declared class itself is stored and replayed.
    Account replayed = null;
    for (int call = 0; call < 2; call++) {
      replayed = idem.execute(OPEN, new Object[] {"acct-1"}, new Object[0], () -> new Account("a-1"));
      runtime.clearResultCache();
    }
    assertEquals(Account.class, replayed.getClass());
    assertEquals("a-1", replayed.id);
  }

  // ---- a null Optional would replay as an empty one

  record TaggedNote(String id, java.util.Optional<String> tag) {}

  private static final CommandSpec<TaggedNote> OPTIONAL_NOTE = CommandSpec.builder("Fidelity.taggedNote", ResultType.of(TaggedNote.class))
      .keyParts("id").build();
  private static final CommandSpec<java.util.Optional<String>> MAYBE = CommandSpec.builder("Fidelity.maybeTag",
      new ResultType<java.util.Optional<String>>() {}).keyParts("id").build();

  @Test
  void aNullWhereAnOptionalIsDeclaredIsRefusedBeforeAnythingIsStored() {
    IdempotencyException property = assertThrows(IdempotencyException.class,
        () -> idem.execute(OPTIONAL_NOTE, new Object[] {"note-1"}, new Object[0], () -> {
          insertPayment("note-1");
          return new TaggedNote("n-1", null);
        }));
    assertTrue(property.getMessage().contains(TaggedNote.class.getName() + ".tag is a null Optional"),
        property.getMessage());
    IdempotencyException whole = assertThrows(IdempotencyException.class,
        () -> idem.execute(MAYBE, new Object[] {"maybe-1"}, new Object[0], () -> null));
    assertTrue(whole.getMessage().contains("returned null where the method declares Optional"), whole.getMessage());
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key IN ('note-1', 'maybe-1')"));
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id = 'note-1'"), "the body's writes rolled back");
    // Empty ones replay as they were returned.
    for (int call = 0; call < 2; call++) {
      TaggedNote empty = new TaggedNote("n-1", java.util.Optional.empty());
      assertEquals(empty, idem.execute(OPTIONAL_NOTE, new Object[] {"note-1"}, new Object[0], () -> empty));
      assertEquals(java.util.Optional.empty(),
          idem.execute(MAYBE, new Object[] {"maybe-1"}, new Object[0], java.util.Optional::<String>empty));
      runtime.clearResultCache();
    }
  }

  // ---- a business failure whose constructor changes its message is not recorded

  static final class DecoratedDeclineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DecoratedDeclineException(String reason) {
      super("declined: " + reason);
    }
  }

  private static final CommandSpec<String> DECORATED = CommandSpec.builder("Fidelity.decorated",
          ResultType.of(String.class))
      .keyParts("id").replayOn(ReplayableFailure.of(DecoratedDeclineException.class,
          e -> new Object[] {e.getMessage()}, arguments -> new DecoratedDeclineException((String) arguments[0]),
          String.class))
      .build();

  @Test
  void aFailureThatWouldNotRecreateWithItsMessageIsNotRecorded() {
    AtomicInteger calls = new AtomicInteger();
    CommandBody<String> declines = () -> {
      calls.incrementAndGet();
      insertPayment("decorated-" + calls.get());
      throw new DecoratedDeclineException("insufficient funds");
    };
    for (int call = 1; call <= 2; call++) {
      DecoratedDeclineException e = assertThrows(DecoratedDeclineException.class,
          () -> idem.execute(DECORATED, new Object[] {"dec-1"}, new Object[0], declines));
      assertEquals("declined: insufficient funds", e.getMessage(), "never decorated twice");
      assertEquals(1, e.getSuppressed().length);
      assertTrue(e.getSuppressed()[0].getMessage().contains("'declined: declined: insufficient funds' instead of"
          + " 'declined: insufficient funds'"), e.getSuppressed()[0].getMessage());
    }
    assertEquals(2, calls.get(), "not recorded, so the retry ran again");
    assertEquals(0, count("SELECT COUNT(*) FROM idem_record WHERE idem_key = 'dec-1'"));
    assertEquals(0, count("SELECT COUNT(*) FROM payments WHERE id LIKE 'decorated-%'"), "rolled back");
  }

  // ---- equal retries, exact replays, through the table

  sealed interface Outcome permits Accepted, Declined {}

  record Accepted(String paymentId, java.math.BigDecimal amount) implements Outcome {}

  record Declined(String reason) implements Outcome {}

  record Order(String customer, java.util.Set<String> items, java.math.BigDecimal total) {}

  private static final CommandSpec<List<Outcome>> DECIDE = CommandSpec.builder("Fidelity.decide",
          new ResultType<List<Outcome>>() {}.withSubtypes(Outcome.class, Accepted.class, Declined.class))
      .keyParts("id").payload("order").build();

  @Test
  void anEqualRetryIsRecognizedAndReplaysTheExactSubtypes() {
    AtomicInteger calls = new AtomicInteger();
    Order first = new Order("c-1", new java.util.LinkedHashSet<>(List.of("b", "a")), new java.math.BigDecimal("12.50"));
    List<Outcome> outcome = idem.execute(DECIDE, new Object[] {"eq-1"}, new Object[] {first}, () -> {
      calls.incrementAndGet();
      return List.of(new Accepted("p-1", new java.math.BigDecimal("12.50")), new Declined("limit"));
    });
    runtime.clearResultCache();
    // Another set order and another scale of the same amount: the same payload.
    Order retry = new Order("c-1", java.util.Set.of("a", "b"), new java.math.BigDecimal("12.5"));
    List<Outcome> replayed = idem.execute(DECIDE, new Object[] {"eq-1"}, new Object[] {retry}, () -> {
      calls.incrementAndGet();
      return List.of();
    });
    assertEquals(1, calls.get());
    assertEquals(outcome, replayed);
    assertEquals(Accepted.class, replayed.get(0).getClass());
    assertEquals(Declined.class, replayed.get(1).getClass());
    // A really different payload is still rejected.
    Order other = new Order("c-1", java.util.Set.of("a", "b"), new java.math.BigDecimal("12.51"));
    assertThrows(dev.idem.runtime.IdempotencyKeyReusedException.class,
        () -> idem.execute(DECIDE, new Object[] {"eq-1"}, new Object[] {other}, () -> List.of()));
  }

  // ---- values replayed exactly: dates with their zone, omitted properties, lone surrogates

  record Slot(java.time.OffsetDateTime start, java.time.ZonedDateTime local, java.time.ZonedDateTime fixed) {}

  private static final CommandSpec<Slot> BOOK = CommandSpec.builder("Fidelity.book", ResultType.of(Slot.class))
      .keyParts("id").build();

  @Test
  void datesReplayWithTheirOffsetAndZoneNotConvertedToUtc() {
    Slot slot = new Slot(java.time.OffsetDateTime.parse("2030-01-02T10:00+02:00"),
        java.time.ZonedDateTime.of(2030, 7, 1, 12, 0, 0, 0, java.time.ZoneId.of("Europe/Paris")),
        java.time.ZonedDateTime.parse("2030-03-04T05:06:07.123456789-03:30"));
    AtomicInteger calls = new AtomicInteger();
    assertEquals(slot, idem.execute(BOOK, new Object[] {"date-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return slot;
    }));
    runtime.clearResultCache();
    Slot replayed = idem.execute(BOOK, new Object[] {"date-1"}, new Object[0], () -> {
      calls.incrementAndGet();
      return null;
    });
    assertEquals(1, calls.get());
    assertEquals(slot, replayed, "the same offsets and zone ids, not the same instants in UTC");
    assertTrue(storedResult("date-1").contains("[Europe/Paris]"), storedResult("date-1"));
    // A record stored before zone ids were written, with offsets only: it reads with those offsets.
    database.execute("UPDATE idem_record SET result = '{\"start\":\"2030-01-02T10:00:00+02:00\","
        + "\"local\":\"2030-07-01T12:00:00+02:00\",\"fixed\":\"2030-03-04T05:06:07.123456789-03:30\"}'"
        + " WHERE idem_key = 'date-1'");
    runtime.clearResultCache();
    Slot old = idem.execute(BOOK, new Object[] {"date-1"}, new Object[0], () -> null);
    assertEquals(slot.start(), old.start());
    assertEquals(java.time.ZonedDateTime.parse("2030-07-01T12:00:00+02:00"), old.local());
    assertEquals(slot.fixed(), old.fixed());
    // A base mapper that writes dates as timestamps (a plain ObjectMapper's default) would keep the instants only.
    IdemRuntime withMapper = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .objectMapper(new com.fasterxml.jackson.databind.ObjectMapper()).build();
    assertReplaysExactly(IdemEngine.of(withMapper), BOOK, "date-2", slot);
    withMapper.close();
  }

  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  record Profile(String name, String nickname,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
      List<String> tags,
      @com.fasterxml.jackson.annotation.JsonInclude(
          content = com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
      java.util.Map<String, String> notes) {}

  record Plain(String name, String nickname, java.util.Optional<String> alias, int count) {}

  private static final CommandSpec<Profile> PROFILE = CommandSpec.builder("Fidelity.profile",
      ResultType.of(Profile.class)).keyParts("id").build();
  private static final CommandSpec<Plain> PLAIN = CommandSpec.builder("Fidelity.plain", ResultType.of(Plain.class))
      .keyParts("id").build();
  private static final CommandSpec<java.util.Map<String, String>> MAP = CommandSpec.builder("Fidelity.map",
      new ResultType<java.util.Map<String, String>>() {}).keyParts("id").build();

  private static <T> void assertReplaysExactly(IdemEngine engine, CommandSpec<T> spec, String key, T value) {
    AtomicInteger calls = new AtomicInteger();
    assertEquals(value, engine.execute(spec, new Object[] {key}, new Object[0], () -> {
      calls.incrementAndGet();
      return value;
    }));
    engine.clearResultCache();
    assertEquals(value, engine.execute(spec, new Object[] {key}, new Object[0], () -> {
      calls.incrementAndGet();
      return null;
    }));
    assertEquals(1, calls.get(), spec.scope() + " ran again");
  }

  @Test
  void nullEmptyAndDefaultPropertiesAreStoredWhateverTheInclusionSoTheyReplay() {
    java.util.Map<String, String> notes = new java.util.HashMap<>();
    notes.put("a", null);
    assertReplaysExactly(idem, PROFILE, "incl-1", new Profile("ann", null, List.of(), notes));
    assertTrue(storedResult("incl-1").contains("\"nickname\":null"), storedResult("incl-1"));
    // A base mapper that leaves out nulls, empty and default values: idem's copy writes them anyway.
    com.fasterxml.jackson.databind.ObjectMapper omitting = new com.fasterxml.jackson.databind.ObjectMapper()
        .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT);
    omitting.configOverride(String.class).setIncludeAsProperty(com.fasterxml.jackson.annotation.JsonInclude.Value
        .construct(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL, null));
    omitting.configOverride(java.util.Map.class).setInclude(com.fasterxml.jackson.annotation.JsonInclude.Value
        .construct(null, com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL));
    IdemRuntime withMapper = IdemRuntime.builder().dataSource(counting).clock(clock).databaseTime(false)
        .objectMapper(omitting).build();
    IdemEngine engine = IdemEngine.of(withMapper);
    assertReplaysExactly(engine, PLAIN, "incl-2", new Plain("cy", null, java.util.Optional.empty(), 0));
    assertReplaysExactly(engine, PROFILE, "incl-3", new Profile(null, null, List.of(), notes));
    assertReplaysExactly(engine, MAP, "incl-4", notes);
    withMapper.close();
  }

  record Login(String name, @com.fasterxml.jackson.annotation.JsonIgnore String passwordHash) {}

  record Team(String name, List<Login> members) {}

  @Test
  void aResultTypeThatCannotRoundTripIsRefusedBeforeAnythingRunsOrCommits() {
    CommandSpec<Login> register = CommandSpec.builder("Fidelity.register", ResultType.of(Login.class))
        .keyParts("id").build();
    CommandSpec<Team> team = CommandSpec.builder("Fidelity.team", ResultType.of(Team.class))
        .keyParts("id").build();
    AtomicInteger calls = new AtomicInteger();
    for (CommandSpec<?> spec : List.of(register, team, register)) {
      dev.idem.runtime.IdempotencyException e = assertThrows(dev.idem.runtime.IdempotencyException.class,
          () -> idem.execute(spec, new Object[] {"ignored-1"}, new Object[0], () -> {
            calls.incrementAndGet();
            insertPayment("ignored-" + calls.get());
            return null;
          }));
      assertTrue(e.getMessage().contains(Login.class.getName()) && e.getMessage().contains("'passwordHash'")
          && e.getMessage().contains(spec.scope()), e.getMessage());
    }
    assertEquals(0, calls.get());
    assertEquals(0, records());
    assertEquals(0, payments());
  }

  @Test
  void aLoneSurrogateIsStoredAsValidUtf8AndReplaysExactly() {
    String cut = "Party \uD83C"; // "Party \uD83C\uDF89 tonight" cut after 7 characters
    assertReplaysExactly(idem, TEXT, "surrogate-1", cut);
    assertReplaysExactly(idem, TEXT, "surrogate-2", "\uDF89 end, \uD83C\uDF89 whole, \uDBFF\uDFFF last, x\uDC00");
    assertReplaysExactly(idem, PAY, "surrogate-3", new Receipt("p-\uD800", 1));
    String stored = storedResult("surrogate-1");
    assertEquals("\"Party \\uD83C\"", stored, "escaped: valid UTF-8 on every database");
  }
}
