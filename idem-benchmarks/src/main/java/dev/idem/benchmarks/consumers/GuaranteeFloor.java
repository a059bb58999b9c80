package dev.idem.benchmarks.consumers;

import dev.idem.benchmarks.consumers.PaymentConsumers.Payment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The batch consumer's same-guarantee floor: hand-written JDBC that gives a batch of messages what idem's batch
 * handler gives it, and nothing more, written as a skilled engineer would for each database. Per batch:
 * <ol>
 *   <li>a connection borrowed from the pool and a transaction of its own (PostgreSQL: {@code setAutoCommit(false)},
 *       which pgjdbc sends with the first statement; MariaDB: a {@code START TRANSACTION} statement on the pool's
 *       auto-commit connection, one round trip where Connector/J's auto-commit switches cost two);
 *   <li>each message's payload fingerprint, the SHA-256 of the canonical JSON of its payload
 *       ({@code {"batch":{"amountCents":…,"messageId":"…","orderId":…}}}, properties sorted by name, as idem
 *       computes it; checked equal to idem's stored fingerprints by {@link GuaranteeFloorCheck}), written by hand;
 *   <li>the batch's messages deduplicated by key, a key seen twice with another fingerprint refusing the batch;
 *   <li>every key claimed with the unique key in the batch's transaction, keys sorted (competing batches lock
 *       common keys in the same order), learning exactly which keys this transaction inserted;
 *   <li>for keys already recorded, their committed fingerprint and expiry read as the database needs to see the
 *       latest committed rows (MariaDB/InnoDB: a locking read; PostgreSQL: the claim's own statement, whose
 *       {@code ON CONFLICT} waited for any competing claim): a live record with another fingerprint refuses the
 *       whole batch (nothing commits), an expired one is taken over by an {@code UPDATE} guarded by the expiry
 *       read and its message processed anew, a live one with the same fingerprint is a duplicate to skip; a key
 *       whose record vanished or changed in between is claimed again;
 *   <li>the business write of the first-seen messages (the benchmark's {@link EffectWriter}: one row per message,
 *       a JDBC batch), then one commit of records and business rows together.
 * </ol>
 * What it leaves out of idem: listeners, metrics, the front tier, joining an application's transaction, the
 * database clock's offset (it takes the application's clock), the checks of a key's syntax.
 *
 * <p>The claim per database:
 * <ul>
 *   <li>PostgreSQL: one statement, {@code INSERT … SELECT FROM unnest(keys, fingerprints) ON CONFLICT DO NOTHING
 *       RETURNING} in a CTE that also reads the records of the keys it did not insert (one round trip, a constant
 *       text, so one server-side plan). pgjdbc's rewritten JDBC batches report no per-row counts, so they cannot
 *       tell which keys were inserted.
 *   <li>MariaDB, {@link MariaDbClaim#RETURNING} (the default): one multi-row {@code INSERT IGNORE … RETURNING
 *       idem_key} as text, then, only when some key was not inserted, one {@code LOCK IN SHARE MODE} read of those
 *       keys. The driver's binary bulk protocol would be cheaper for the server, but on MariaDB 10.11 it reports
 *       no per-row result (Connector/J answers {@code SUCCESS_NO_INFO}) and fails with RETURNING, so an
 *       {@code INSERT IGNORE} through it cannot tell which keys it inserted.
 *   <li>MariaDB, {@link MariaDbClaim#READ_FIRST}: one {@code SELECT … FOR UPDATE} of all keys (it locks the gaps of
 *       absent keys at REPEATABLE READ, so no competitor inserts them before this commit), then a plain
 *       {@code INSERT} of the absent ones through the binary bulk protocol: always one statement more, each cheaper.
 *       A competitor's duplicate or a deadlock rolls the attempt back and it runs again.
 * </ul>
 */
final class GuaranteeFloor {

  /** MariaDB's two correct claims; see the class comment. */
  enum MariaDbClaim { RETURNING, READ_FIRST }

  /** A message id reused with another payload: the batch is refused and nothing of it commits. */
  static final class KeyReusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    KeyReusedException(String key) {
      super("message key '" + key + "' was recorded with another payload");
    }
  }

  /** The business write, on the batch's connection. */
  interface Body {
    void run(Connection connection, List<Payment> firstSeen) throws SQLException;
  }

  private static final int MAX_ROUNDS = 5;
  private static final int MAX_ATTEMPTS = 3;

  private final DataSource dataSource;
  private final boolean postgres;
  private final MariaDbClaim mariaDbClaim;
  private final String table;
  private final String scope;
  private final long retentionMillis;
  private final LongSupplier clock;
  private final MessageDigest sha256;
  private final String pgClaimSql;
  private final String takeOverSql;
  /** The last text per row count (consumers send batches of one size). */
  private final Map<Integer, String> textCache = new HashMap<>();

  GuaranteeFloor(DataSource dataSource, boolean postgres, MariaDbClaim mariaDbClaim, String table, String scope,
                 long retentionMillis, LongSupplier clock) {
    this.dataSource = dataSource;
    this.postgres = postgres;
    this.mariaDbClaim = mariaDbClaim;
    this.table = table;
    this.scope = scope;
    this.retentionMillis = retentionMillis;
    this.clock = clock;
    try {
      this.sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    // The keys arrive sorted: inserting (and so locking) them in the arrays' order needs no sort by collation.
    this.pgClaimSql = "WITH m AS (SELECT * FROM unnest(?::varchar[], ?::varchar[]) WITH ORDINALITY"
        + " AS m(idem_key, fingerprint, n)),"
        + " ins AS (INSERT INTO " + table + " (scope, idem_key, state, fingerprint, created_at, expires_at)"
        + " SELECT ?, m.idem_key, 'COMPLETED', m.fingerprint, ?, ? FROM m ORDER BY m.n"
        + " ON CONFLICT (scope, idem_key) DO NOTHING RETURNING idem_key)"
        + " SELECT idem_key, NULL, NULL::bigint FROM ins"
        + " UNION ALL SELECT r.idem_key, r.fingerprint, r.expires_at FROM m JOIN " + table
        + " r ON r.scope = ? AND r.idem_key = m.idem_key"
        + " WHERE NOT EXISTS (SELECT 1 FROM ins WHERE ins.idem_key = m.idem_key)";
    this.takeOverSql = "UPDATE " + table + " SET fingerprint = ?, state = 'COMPLETED', created_at = ?,"
        + " expires_at = ? WHERE scope = ? AND idem_key = ? AND expires_at = ?";
  }

  /** The key of a message, as idem composes it from its key parts. */
  static String keyOf(Payment payment, String group) {
    return payment.messageId() + "|" + group;
  }

  /**
   * Consumes one batch in one transaction on a connection of its own; returns the number of messages processed.
   *
   * @throws KeyReusedException when a key comes with another payload than its live record's or than an earlier
   *     message of the batch; nothing of the batch is committed then
   */
  int consume(List<Payment> batch, String group, Body body) throws SQLException {
    // Fingerprints and the batch's own duplicates, before any database access.
    Map<String, String> fingerprints = new HashMap<>(batch.size() * 2);
    Map<String, Payment> firstOf = new LinkedHashMap<>(batch.size() * 2);
    for (Payment payment : batch) {
      String key = keyOf(payment, group);
      String fingerprint = fingerprint(payment);
      String first = fingerprints.putIfAbsent(key, fingerprint);
      if (first == null) {
        firstOf.put(key, payment);
      } else if (!first.equals(fingerprint)) {
        throw new KeyReusedException(key);
      }
    }
    List<String> sorted = new ArrayList<>(firstOf.keySet());
    sorted.sort(null);
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(sorted, fingerprints, firstOf, body);
      } catch (SQLException e) {
        if (attempt >= MAX_ATTEMPTS || !retryable(e)) {
          throw e;
        }
      }
    }
  }

  private int attempt(List<String> sorted, Map<String, String> fingerprints, Map<String, Payment> firstOf, Body body)
      throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      begin(connection);
      boolean committed = false;
      try {
        long now = clock.getAsLong();
        long expiresAt = now + retentionMillis;
        Set<String> claimed = new HashSet<>(sorted.size() * 2);
        List<String> unresolved = sorted;
        for (int round = 1; !unresolved.isEmpty(); round++) {
          if (round > MAX_ROUNDS) {
            throw new SQLException("keys kept vanishing or changing: " + unresolved, "40001");
          }
          Map<String, Stored> found = new HashMap<>();
          Set<String> inserted = claim(connection, unresolved, fingerprints, now, expiresAt, found);
          claimed.addAll(inserted);
          List<String> again = new ArrayList<>();
          for (String key : unresolved) {
            if (inserted.contains(key)) {
              continue;
            }
            Stored stored = found.get(key);
            if (stored == null) {
              again.add(key); // its competing claim committed after our read began, or it was purged
            } else if (stored.expiresAt() <= now) {
              if (takeOver(connection, key, fingerprints.get(key), now, expiresAt, stored.expiresAt())) {
                claimed.add(key);
              } else {
                again.add(key);
              }
            } else if (!stored.fingerprint().equals(fingerprints.get(key))) {
              throw new KeyReusedException(key);
            } // else: a duplicate, skipped
          }
          unresolved = again;
        }
        List<Payment> firstSeen = new ArrayList<>(claimed.size());
        for (Map.Entry<String, Payment> message : firstOf.entrySet()) { // delivery order
          if (claimed.contains(message.getKey())) {
            firstSeen.add(message.getValue());
          }
        }
        if (!firstSeen.isEmpty()) {
          body.run(connection, firstSeen);
        }
        commit(connection);
        committed = true;
        return firstSeen.size();
      } finally {
        if (!committed) {
          rollback(connection);
        }
      }
    }
  }

  private record Stored(String fingerprint, long expiresAt) {}

  /** Inserts the absent keys; returns those this transaction inserted and puts the others' records in found. */
  private Set<String> claim(Connection connection, List<String> keys, Map<String, String> fingerprints, long now,
                            long expiresAt, Map<String, Stored> found) throws SQLException {
    Set<String> inserted = new HashSet<>(keys.size() * 2);
    if (postgres) {
      List<String> prints = new ArrayList<>(keys.size());
      for (String key : keys) {
        prints.add(fingerprints.get(key));
      }
      try (PreparedStatement claim = connection.prepareStatement(pgClaimSql)) {
        claim.setString(1, arrayLiteral(keys));
        claim.setString(2, arrayLiteral(prints));
        claim.setString(3, scope);
        claim.setLong(4, now);
        claim.setLong(5, expiresAt);
        claim.setString(6, scope);
        try (ResultSet rows = claim.executeQuery()) {
          while (rows.next()) {
            String fingerprint = rows.getString(2);
            if (fingerprint == null) { // NOT NULL in the table: a row of RETURNING
              inserted.add(rows.getString(1));
            } else {
              found.put(rows.getString(1), new Stored(fingerprint, rows.getLong(3)));
            }
          }
        }
      }
      return inserted;
    }
    if (mariaDbClaim == MariaDbClaim.READ_FIRST) {
      read(connection, keys, " FOR UPDATE", found);
      List<String> absent = new ArrayList<>(keys.size());
      for (String key : keys) {
        if (!found.containsKey(key)) {
          absent.add(key);
        }
      }
      if (!absent.isEmpty()) {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
            + " (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES (?, ?, 'COMPLETED', ?, ?, ?)")) {
          for (String key : absent) {
            insert.setString(1, scope);
            insert.setString(2, key);
            insert.setString(3, fingerprints.get(key));
            insert.setLong(4, now);
            insert.setLong(5, expiresAt);
            insert.addBatch();
          }
          insert.executeBatch(); // a duplicate (a competitor got in first) fails the attempt, which runs again
        }
        inserted.addAll(absent);
      }
      return inserted;
    }
    try (PreparedStatement claim = connection.prepareStatement(returningClaimSql(keys.size()))) {
      int parameter = 1;
      for (String key : keys) {
        claim.setString(parameter++, scope);
        claim.setString(parameter++, key);
        claim.setString(parameter++, fingerprints.get(key));
        claim.setLong(parameter++, now);
        claim.setLong(parameter++, expiresAt);
      }
      if (claim.execute()) {
        try (ResultSet rows = claim.getResultSet()) {
          while (rows.next()) {
            inserted.add(rows.getString(1));
          }
        }
      } else if (claim.getUpdateCount() > 0) {
        throw new SQLException("the driver returned no RETURNING rows", "XX000");
      }
    }
    if (inserted.size() < keys.size()) {
      List<String> recorded = new ArrayList<>(keys.size() - inserted.size());
      for (String key : keys) {
        if (!inserted.contains(key)) {
          recorded.add(key);
        }
      }
      read(connection, recorded, " LOCK IN SHARE MODE", found);
    }
    return inserted;
  }

  private String returningClaimSql(int rows) {
    return textCache.computeIfAbsent(rows, n -> {
      StringBuilder sql = new StringBuilder("INSERT IGNORE INTO ").append(table)
          .append(" (scope, idem_key, state, fingerprint, created_at, expires_at) VALUES ");
      for (int i = 0; i < n; i++) {
        sql.append(i == 0 ? "" : ", ").append("(?, ?, 'COMPLETED', ?, ?, ?)");
      }
      return sql.append(" RETURNING idem_key").toString();
    });
  }

  /** MariaDB: the latest committed records of the keys, by a locking read. */
  private void read(Connection connection, List<String> keys, String lock, Map<String, Stored> found)
      throws SQLException {
    StringBuilder sql = new StringBuilder("SELECT idem_key, fingerprint, expires_at FROM ").append(table)
        .append(" WHERE scope = ? AND idem_key IN (");
    for (int i = 0; i < keys.size(); i++) {
      sql.append(i == 0 ? "?" : ", ?");
    }
    sql.append(')').append(lock);
    try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
      select.setString(1, scope);
      for (int i = 0; i < keys.size(); i++) {
        select.setString(i + 2, keys.get(i));
      }
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          found.put(rows.getString(1), new Stored(rows.getString(2), rows.getLong(3)));
        }
      }
    }
  }

  private boolean takeOver(Connection connection, String key, String fingerprint, long now, long expiresAt,
                           long seenExpiresAt) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(takeOverSql)) {
      update.setString(1, fingerprint);
      update.setLong(2, now);
      update.setLong(3, expiresAt);
      update.setString(4, scope);
      update.setString(5, key);
      update.setLong(6, seenExpiresAt);
      return update.executeUpdate() == 1;
    }
  }

  private void begin(Connection connection) throws SQLException {
    if (postgres) {
      connection.setAutoCommit(false);
    } else {
      try (Statement statement = connection.createStatement()) {
        statement.execute("START TRANSACTION");
      }
    }
  }

  private void commit(Connection connection) throws SQLException {
    if (postgres) {
      connection.commit();
    } else {
      try (Statement statement = connection.createStatement()) {
        statement.execute("COMMIT");
      }
    }
  }

  private void rollback(Connection connection) {
    try {
      if (postgres) {
        connection.rollback();
      } else {
        try (Statement statement = connection.createStatement()) {
          statement.execute("ROLLBACK");
        }
      }
    } catch (SQLException e) {
      // the connection goes back to the pool, which discards a broken one
    }
  }

  /** Deadlocks, serialization failures and (MariaDB, read first) a competitor's duplicate: the attempt reruns. */
  private static boolean retryable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        int code = s.getErrorCode();
        if ("40001".equals(state) || "40P01".equals(state) || code == 1213 || code == 1205 || code == 1062) {
          return true;
        }
      }
    }
    return false;
  }

  // ------------------------------------------------------------------------------------------------
  // The payload's fingerprint, by hand

  private final StringBuilder json = new StringBuilder(128);
  private final byte[] hash = new byte[32];
  private final char[] hex = new char[64];
  private static final char[] HEX_DIGITS = "0123456789abcdef".toCharArray();
  private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

  /**
   * SHA-256 (lower-case hex) of the canonical JSON of the payload {@code {"batch": payment}}: the record's
   * properties sorted by name, numbers as Java writes longs, the text escaped as Jackson escapes it. One consumer
   * thread per floor (its buffers are reused).
   */
  String fingerprint(Payment payment) {
    sha256.reset();
    byte[] bytes = canonicalJson(payment).getBytes(StandardCharsets.UTF_8);
    sha256.update(bytes);
    try {
      sha256.digest(hash, 0, hash.length);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException(e);
    }
    for (int i = 0; i < hash.length; i++) {
      hex[2 * i] = HEX_DIGITS[(hash[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX_DIGITS[hash[i] & 0xf];
    }
    return new String(hex);
  }

  /** The canonical JSON of the payload {@code {"batch": payment}}, as idem fingerprints it. */
  String canonicalJson(Payment payment) {
    json.setLength(0);
    json.append("{\"batch\":{\"amountCents\":").append(payment.amountCents()).append(",\"messageId\":");
    appendString(json, payment.messageId());
    return json.append(",\"orderId\":").append(payment.orderId()).append("}}").toString();
  }

  /** A JSON string as Jackson writes it: quotes, backslash and control characters escaped, the rest as is. */
  static void appendString(StringBuilder out, String text) {
    if (text == null) {
      out.append("null");
      return;
    }
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append("\\u00").append(UPPER_HEX[c >> 4]).append(UPPER_HEX[c & 0xf]); // as Jackson
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /** PostgreSQL's text form of a varchar array, every element quoted, {@code "} and {@code \} escaped. */
  static String arrayLiteral(List<String> elements) {
    StringBuilder literal = new StringBuilder(elements.size() * 60).append('{');
    for (int i = 0; i < elements.size(); i++) {
      String element = elements.get(i);
      literal.append(i == 0 ? "\"" : ",\"");
      if (element.indexOf('"') < 0 && element.indexOf('\\') < 0) {
        literal.append(element);
      } else {
        for (int c = 0; c < element.length(); c++) {
          char ch = element.charAt(c);
          if (ch == '"' || ch == '\\') {
            literal.append('\\');
          }
          literal.append(ch);
        }
      }
      literal.append('"');
    }
    return literal.append('}').toString();
  }
}
