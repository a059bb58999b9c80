package dev.idem.benchmarks.consumers;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.idem.benchmarks.consumers.PaymentConsumers.Payment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Checks that {@link GuaranteeFloor} keeps idem's batch guarantees before it is measured (a floor that loses one is
 * no floor): duplicates within a batch and across batches processed once; a message id reused with another payload
 * refused, within a batch and against a live record, with nothing of the batch committed; an expired record
 * processed anew (with the same and with another payload); records and business rows committed together (a failing
 * business write leaves no record); two consumers racing over the same messages process each once; and its
 * fingerprints equal to the ones idem stores for the same messages. Runs in a scope and with message ids of its own
 * on the benchmark's tables; throws {@link IllegalStateException} on the first broken guarantee.
 */
final class GuaranteeFloorCheck {

  private static final String SCOPE = "check.payments";
  private static final String GROUP = "check";
  private static final long RETENTION = java.time.Duration.ofDays(15).toMillis();

  private final DataSource dataSource;
  private final Supplier<GuaranteeFloor> floors;
  private final String table;
  private final String prefix;

  private GuaranteeFloorCheck(DataSource dataSource, Supplier<GuaranteeFloor> floors, String table, String prefix) {
    this.dataSource = dataSource;
    this.floors = floors;
    this.table = table;
    this.prefix = prefix;
  }

  /**
   * Runs every check; {@code idem} consumes two messages in scope {@code idemScope} of {@code idemTable}, whose
   * stored fingerprints must equal the floor's.
   *
   * @return a one-line summary
   */
  static String run(DataSource dataSource, boolean postgres, GuaranteeFloor.MariaDbClaim claim, String table,
                    PaymentConsumers idem, String idemTable, String idemScope) throws Exception {
    String prefix = "chk" + Long.toHexString(new Random().nextLong() & 0xffffffL) + "-";
    GuaranteeFloorCheck check = new GuaranteeFloorCheck(dataSource,
        () -> new GuaranteeFloor(dataSource, postgres, claim, table, SCOPE, RETENTION, System::currentTimeMillis),
        table, prefix);
    check.step("canonical JSON", check::sameJsonAsJackson);
    check.step("fingerprints", () -> check.sameFingerprintsAsIdem(idem, idemTable, idemScope));
    check.step("duplicates", check::duplicatesOnce);
    check.step("reused ids", check::reusedKeysRefused);
    check.step("expired records", check::expiredProcessedAnew);
    check.step("one commit", check::committedTogether);
    check.step("racing consumers", check::racingConsumers);
    return "guarantee floor checked (" + (postgres ? "PostgreSQL" : "MariaDB, claim " + claim) + "): duplicates in"
        + " and across batches once, reused ids refused with nothing committed, expired records processed anew,"
        + " records and business rows committed together, two racing consumers each message once, fingerprints"
        + " equal to idem's";
  }

  private interface Step {
    void run() throws Exception;
  }

  /** Runs one check; whatever it throws means the floor lost that guarantee. */
  private void step(String name, Step step) {
    try {
      step.run();
    } catch (IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("The guarantee floor lost a guarantee (" + name + "): " + e, e);
    }
  }

  private Payment payment(String id, long amount) {
    return new Payment(prefix + id, 1, amount);
  }

  private int consume(GuaranteeFloor floor, List<Payment> batch) throws SQLException {
    return floor.consume(batch, GROUP, ConsumerBenchmark::writeEffects);
  }

  private void sameJsonAsJackson() throws Exception {
    ObjectMapper jackson = JsonMapper.builder().enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY).build();
    GuaranteeFloor floor = floors.get();
    for (String id : List.of("plain-1", "q\"uote\\back/slash", "tab\tnl\ncr\rbs\bff\fnul\u0000us\u001f", "é✓")) {
      Payment payment = new Payment(id, -7, 123_456_789_012L);
      String expected = jackson.writeValueAsString(Map.of("batch", payment));
      expect(floor.canonicalJson(payment).equals(expected), "canonical JSON " + floor.canonicalJson(payment)
          + " differs from Jackson's " + expected);
    }
  }

  private void sameFingerprintsAsIdem(PaymentConsumers idem, String idemTable, String idemScope) throws SQLException {
    List<Payment> batch = List.of(payment("idem-1", 100), payment("idem-2", 250));
    idem.onPayments(batch, GROUP);
    GuaranteeFloor floor = floors.get();
    for (Payment payment : batch) {
      String stored = text("SELECT fingerprint FROM " + idemTable + " WHERE scope = ? AND idem_key = ?", idemScope,
          GuaranteeFloor.keyOf(payment, GROUP));
      expect(floor.fingerprint(payment).equals(stored), "fingerprint of " + payment + ": floor "
          + floor.fingerprint(payment) + ", idem " + stored);
    }
  }

  private void duplicatesOnce() throws SQLException {
    GuaranteeFloor floor = floors.get();
    Payment a = payment("a", 100);
    Payment b = payment("b", 200);
    Payment c = payment("c", 300);
    expect(consume(floor, List.of(a, b, a)) == 2, "a batch with a duplicate processed other than 2 messages");
    expect(consume(floor, List.of(c, a, b)) == 1, "a batch redelivering two messages processed other than 1");
    expect(consume(floor, List.of(a, b, c)) == 0, "a redelivered batch processed messages");
    for (Payment p : List.of(a, b, c)) {
      expect(effects(p) == 1, p.messageId() + " has " + effects(p) + " business rows, not 1");
    }
  }

  private void reusedKeysRefused() throws SQLException {
    GuaranteeFloor floor = floors.get();
    Payment d = payment("d", 400);
    Payment aOther = payment("a", 101); // a's id, another payload; a is live
    refused(() -> consume(floor, List.of(d, aOther)), "a reused id against a live record");
    expect(effects(d) == 0 && records(d) == 0, "a refused batch committed its other message");
    Payment e = payment("e", 500);
    Payment eOther = payment("e", 501);
    refused(() -> consume(floor, List.of(e, eOther)), "a reused id within one batch");
    expect(effects(e) == 0 && records(e) == 0, "a batch refused before the database wrote something");
  }

  private void expiredProcessedAnew() throws SQLException {
    GuaranteeFloor floor = floors.get();
    Payment a = payment("a", 100);
    Payment b = payment("b", 200);
    Payment bOther = payment("b", 201);
    expire(a);
    expire(b);
    expect(consume(floor, List.of(a, bOther)) == 2, "expired records were not processed anew");
    expect(effects(a) == 2 && effects(b) == 2, "an expired record's message was not written anew");
    expect(floor.fingerprint(bOther).equals(text("SELECT fingerprint FROM " + table
        + " WHERE scope = ? AND idem_key = ?", SCOPE, GuaranteeFloor.keyOf(b, GROUP))),
        "a taken-over record kept the old fingerprint");
    expect(consume(floor, List.of(a, bOther)) == 0, "a taken-over record did not dedup its redelivery");
    refused(() -> consume(floor, List.of(b)), "the old payload of a taken-over id");
  }

  private void committedTogether() throws SQLException {
    GuaranteeFloor floor = floors.get();
    Payment f = payment("f", 600);
    try {
      floor.consume(List.of(f), GROUP, (connection, firstSeen) -> {
        ConsumerBenchmark.writeEffects(connection, firstSeen);
        throw new SQLException("the business write failed");
      });
      throw new IllegalStateException("the failing business write did not fail the batch");
    } catch (SQLException expected) {
      // the batch rolled back
    }
    expect(records(f) == 0 && effects(f) == 0, "a failed batch left its record or business row");
    expect(consume(floor, List.of(f)) == 1, "a message whose batch failed was not processed on redelivery");
  }

  private void racingConsumers() throws Exception {
    List<Payment> messages = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      messages.add(payment("race-" + i, i));
    }
    List<Payment> shuffled = new ArrayList<>(messages);
    Collections.shuffle(shuffled, new Random(5));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<Future<Integer>> processed = new ArrayList<>();
      for (List<Payment> stream : List.of(messages, shuffled)) {
        processed.add(threads.submit(() -> {
          GuaranteeFloor floor = floors.get(); // one per consumer thread
          int n = 0;
          for (int from = 0; from < stream.size(); from += 100) {
            n += consume(floor, stream.subList(from, from + 100));
          }
          return n;
        }));
      }
      int total = processed.get(0).get() + processed.get(1).get();
      expect(total == messages.size(), "two racing consumers processed " + total + " of " + messages.size());
      long rows = count("SELECT COUNT(*) FROM effects WHERE message_id LIKE ?", prefix + "race-%");
      expect(rows == messages.size(), "two racing consumers wrote " + rows + " business rows for "
          + messages.size() + " messages");
    } finally {
      threads.shutdown();
    }
  }

  private interface Call {
    void run() throws SQLException;
  }

  private static void refused(Call call, String what) throws SQLException {
    try {
      call.run();
    } catch (GuaranteeFloor.KeyReusedException expected) {
      return;
    }
    throw new IllegalStateException(what + " was not refused");
  }

  private static void expect(boolean condition, String failure) {
    if (!condition) {
      throw new IllegalStateException("The guarantee floor lost a guarantee: " + failure);
    }
  }

  private void expire(Payment payment) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement update = connection.prepareStatement("UPDATE " + table
            + " SET expires_at = ? WHERE scope = ? AND idem_key = ?")) {
      update.setLong(1, System.currentTimeMillis() - 1);
      update.setString(2, SCOPE);
      update.setString(3, GuaranteeFloor.keyOf(payment, GROUP));
      expect(update.executeUpdate() == 1, "no record to expire for " + payment.messageId());
    }
  }

  private long effects(Payment payment) throws SQLException {
    return count("SELECT COUNT(*) FROM effects WHERE message_id = ?", payment.messageId());
  }

  private long records(Payment payment) throws SQLException {
    return count("SELECT COUNT(*) FROM " + table + " WHERE scope = ? AND idem_key = ?", SCOPE,
        GuaranteeFloor.keyOf(payment, GROUP));
  }

  private long count(String sql, String... parameters) throws SQLException {
    return Long.parseLong(text(sql, parameters));
  }

  private String text(String sql, String... parameters) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        query.setString(i + 1, parameters[i]);
      }
      try (ResultSet rows = query.executeQuery()) {
        return rows.next() ? rows.getString(1) : null;
      }
    }
  }
}
