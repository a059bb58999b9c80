package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import dev.idem.benchmarks.jmh.BenchOrders.OrderReceipt;
import dev.idem.benchmarks.jmh.BenchOrders.PlaceOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The pattern practitioners write by hand, as a careful engineer writes it for each database: claim the request key
 * in a unique-key table together with the response, make the business write, commit; on a duplicate, read the
 * earlier response back. One transaction, two statements on a first execution. What it leaves out compared with
 * idem: no payload fingerprint (a reused key with another payload silently replays), no retention, no JSON.
 */
abstract class HandWrittenOrders {

  /** Where the pattern claims its keys: its own lean table, or one shaped like idem's record table. */
  enum KeyTable {
    /** {@code request_keys}: the key as primary key, the response, a timestamp. */
    LEAN("request_keys", "request_key", "", "", "request_key = ?"),
    /**
     * {@code request_keys_wide}: idem_record's shape (scope + key as primary key, state, fingerprint, expiry, an index
     * on the expiry), to tell what the record's shape costs from what idem's code costs.
     */
    IDEM_SHAPED("request_keys_wide", "request_key", ", scope, state, fingerprint, expires_at",
        ", 'bench.orders.place', ?, ?, ?",
        // The whole primary key, as idem finds its record: by the key alone no index would serve.
        "scope = 'bench.orders.place' AND request_key = ?");

    final String table;
    final String keyColumn;
    final String extraColumns;
    final String extraValues;
    /** The WHERE condition that finds a key's row, its one parameter the key. */
    final String byKey;

    KeyTable(String table, String keyColumn, String extraColumns, String extraValues, String byKey) {
      this.table = table;
      this.keyColumn = keyColumn;
      this.extraColumns = extraColumns;
      this.extraValues = extraValues;
      this.byKey = byKey;
    }

    String columns() {
      return "(" + keyColumn + ", order_id, total_cents, created_at" + extraColumns + ")";
    }

    String valuesClause() {
      return "(?, ?, ?, ?" + extraValues + ")";
    }
  }

  /** How the pattern opens and ends its transactions on a connection the pool lends in auto-commit mode. */
  enum TransactionStart {
    /** {@code setAutoCommit(false)} … {@code commit()} … {@code setAutoCommit(true)}, as JDBC code does. */
    AUTO_COMMIT_SWITCH,
    /**
     * {@code START TRANSACTION} … {@code COMMIT} statements, auto-commit left on: MariaDB Connector/J sends each
     * auto-commit switch as a round trip of its own, so this is one round trip fewer there (what idem does on
     * MariaDB); pgjdbc sends nothing for the switch and H2 runs in-process.
     */
    STATEMENTS
  }

  private final DataSource dataSource;
  final KeyTable keyTable;
  private final TransactionStart transactionStart;

  HandWrittenOrders(DataSource dataSource, KeyTable keyTable, TransactionStart transactionStart) {
    this.dataSource = dataSource;
    this.keyTable = keyTable;
    this.transactionStart = transactionStart;
  }

  static HandWrittenOrders forDatabase(TestDatabase database, DataSource dataSource, KeyTable keyTable) {
    return forDatabase(database, dataSource, keyTable, TransactionStart.AUTO_COMMIT_SWITCH);
  }

  static HandWrittenOrders forDatabase(TestDatabase database, DataSource dataSource, KeyTable keyTable,
                                       TransactionStart transactionStart) {
    return switch (database) {
      case POSTGRESQL -> new Postgres(dataSource, keyTable, transactionStart);
      case MARIADB -> new MariaDb(dataSource, keyTable, transactionStart);
      case H2 -> new H2(dataSource, keyTable, transactionStart);
    };
  }

  OrderReceipt placeOrder(String requestKey, PlaceOrder order) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      return inTransaction(connection, () -> claim(connection, requestKey, order, false)
          ? insertOrder(connection, order)
          : readEarlier(connection, requestKey));
    }
  }

  /**
   * The floor of idem's statement shape for a command with a result, written by hand: the key claimed first in the
   * transaction (so that a concurrent duplicate waits on it before the work runs), the business write, then the
   * response written into the key's row by an UPDATE, one commit. Against {@link #placeOrder}, which writes the
   * response with the key, this is what the extra statement costs by itself; against idem, what idem's code costs.
   */
  OrderReceipt placeOrderCompletedAfter(String requestKey, PlaceOrder order) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      return claimWorkAndRespond(connection, requestKey, order);
    }
  }

  /** One transaction on {@code connection}: the key claimed, the business write, the response by an UPDATE. */
  private OrderReceipt claimWorkAndRespond(Connection connection, String requestKey, PlaceOrder order)
      throws SQLException {
    return inTransaction(connection, () -> {
      if (!claim(connection, requestKey, order, true)) {
        return readEarlier(connection, requestKey);
      }
      OrderReceipt receipt = insertOrder(connection, order);
      writeResponse(connection, requestKey, receipt);
      return receipt;
    });
  }

  /**
   * The floor of a read-first command with a result (idem's {@code lookupFirst}), by hand: one SELECT of the key's
   * row in auto-commit mode, without a lock, that answers a retry whose response is written; on a miss,
   * {@link #placeOrderCompletedAfter}'s transaction on the same connection.
   */
  OrderReceipt placeOrderReadFirst(String requestKey, PlaceOrder order) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      try (PreparedStatement select = connection.prepareStatement(
          "SELECT order_id, total_cents FROM " + keyTable.table + " WHERE " + keyTable.byKey)) {
        select.setString(1, requestKey);
        try (ResultSet row = select.executeQuery()) {
          if (row.next() && row.getLong(1) != 0) {
            return new OrderReceipt(row.getLong(1), row.getLong(2));
          }
        }
      }
      return claimWorkAndRespond(connection, requestKey, order);
    }
  }

  /**
   * The floor of a void command that keeps the implicit-commit guard (idem's default void path on H2 and MariaDB,
   * whose DDL commits a transaction early), by hand: the key claimed {@code PENDING} first in the transaction, the
   * business write, then the key completed by an UPDATE of its state, one commit; no response. A body that commits
   * early and then fails leaves a {@code PENDING} row, which a retry must refuse rather than count as done; the
   * state is the one thing the completion writes. Against {@link #placeOrder} on the same table (2b), which writes
   * the key with the work and has no such guard, this is what the guard costs by itself.
   */
  void recordOrderGuarded(String requestKey, PlaceOrder order) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      inTransaction(connection, () -> {
        if (!claim(connection, requestKey, order, true)) {
          return readEarlier(connection, requestKey);
        }
        OrderReceipt receipt = insertOrder(connection, order);
        try (PreparedStatement complete = connection.prepareStatement("UPDATE " + keyTable.table
            + " SET state = 'COMPLETED' WHERE " + keyTable.byKey)) {
          complete.setString(1, requestKey);
          complete.executeUpdate();
        }
        return receipt;
      });
    }
  }

  /**
   * The floor of a claim that must be visible before its work runs (what idem's CLAIM mode guarantees), written by
   * hand: the key committed on its own in auto-commit mode, {@code IN_PROGRESS} with a random owner token and a
   * lease (so that a crashed owner's claim can be taken over once the lease ends, and only then), then the business
   * write and the key's response in a second transaction, the completing UPDATE fenced by the owner token and the
   * state (a caller whose lease was taken over must not record over the new owner: its update count would be 0).
   * Two commits where {@link #placeOrder} pays one. What it leaves out, as more than CLAIM's guarantees need on a
   * first execution: no read of the key before the claim, no lease extension.
   */
  OrderReceipt placeOrderClaimFirst(String requestKey, PlaceOrder order) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      String ownerToken = java.util.UUID.randomUUID().toString();
      if (!claimLeased(connection, requestKey, order, ownerToken)) {
        return readEarlier(connection, requestKey);
      }
      return inTransaction(connection, () -> {
        OrderReceipt receipt = insertOrder(connection, order);
        try (PreparedStatement complete = connection.prepareStatement("UPDATE " + keyTable.table
            + " SET state = 'COMPLETED', order_id = ?, total_cents = ? WHERE " + keyTable.byKey
            + " AND state = 'IN_PROGRESS' AND owner_token = ?")) {
          complete.setLong(1, receipt.orderId());
          complete.setLong(2, receipt.totalCents());
          complete.setString(3, requestKey);
          complete.setString(4, ownerToken);
          if (complete.executeUpdate() != 1) {
            throw new IllegalStateException("The lease of " + requestKey + " was taken over");
          }
        }
        return receipt;
      });
    }
  }

  /**
   * The CLAIM floor's claim, in auto-commit mode: the key row {@code IN_PROGRESS} with the fingerprint, the owner
   * token and the lease's end (30 s, idem's default lease). Only on the idem_record-shaped table.
   *
   * @return true if this call inserted the key, false if it was there already
   */
  boolean claimLeased(Connection connection, String requestKey, PlaceOrder order, String ownerToken)
      throws SQLException {
    if (keyTable != KeyTable.IDEM_SHAPED) {
      throw new IllegalStateException("A lease needs the idem_record-shaped table");
    }
    try (PreparedStatement insert = connection.prepareStatement("INSERT " + insertIgnore() + "INTO "
        + keyTable.table + " (request_key, order_id, total_cents, created_at, scope, state, fingerprint,"
        + " expires_at, owner_token, lease_until) VALUES (?, 0, 0, ?, 'bench.orders.place', 'IN_PROGRESS', ?, ?,"
        + " ?, ?)" + onConflictDoNothing())) {
      long now = System.currentTimeMillis();
      long leaseUntil = now + 30_000L;
      insert.setString(1, requestKey);
      insert.setLong(2, now);
      insert.setString(3, HandWrittenReplay.fingerprint(order));
      insert.setLong(4, leaseUntil + 86_400_000L);
      insert.setString(5, ownerToken);
      insert.setLong(6, leaseUntil);
      return insert.executeUpdate() == 1;
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState()) && this instanceof H2) {
        return false; // H2: the duplicate fails the statement alone, in auto-commit nothing else
      }
      throw e;
    }
  }

  /** {@code IGNORE } where the database's insert skips a duplicate that way (MariaDB), else empty. */
  String insertIgnore() {
    return "";
  }

  /** {@code  ON CONFLICT DO NOTHING} where the database's insert skips a duplicate that way (PostgreSQL). */
  String onConflictDoNothing() {
    return "";
  }

  /** The work of one transaction. */
  private interface Work {
    OrderReceipt run() throws SQLException;
  }

  /** Runs {@code work} in a transaction of its own on {@code connection}: commit, or roll back and rethrow. */
  private OrderReceipt inTransaction(Connection connection, Work work) throws SQLException {
    if (transactionStart == TransactionStart.STATEMENTS) {
      return inStatementTransaction(connection, work);
    }
    connection.setAutoCommit(false);
    try {
      OrderReceipt receipt = work.run();
      connection.commit();
      return receipt;
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      // Leave the connection as the pool handed it out, whichever pool that is.
      connection.setAutoCommit(true);
    }
  }

  /** {@link #inTransaction} with START TRANSACTION … COMMIT statements, the connection left in auto-commit mode. */
  private static OrderReceipt inStatementTransaction(Connection connection, Work work) throws SQLException {
    try (Statement control = connection.createStatement()) {
      control.execute("START TRANSACTION");
      try {
        OrderReceipt receipt = work.run();
        control.execute("COMMIT");
        return receipt;
      } catch (SQLException | RuntimeException e) {
        control.execute("ROLLBACK");
        throw e;
      }
    }
  }

  /**
   * The key's row before its response is known: the floors claim it first ({@code PENDING} in the idem_record-shaped
   * table) and write the response, completing it, after the work.
   */
  private void writeResponse(Connection connection, String requestKey, OrderReceipt receipt) throws SQLException {
    try (PreparedStatement complete = connection.prepareStatement("UPDATE " + keyTable.table
        + " SET " + (keyTable == KeyTable.IDEM_SHAPED ? "state = 'COMPLETED', " : "")
        + "order_id = ?, total_cents = ? WHERE " + keyTable.byKey)) {
      complete.setLong(1, receipt.orderId());
      complete.setLong(2, receipt.totalCents());
      complete.setString(3, requestKey);
      complete.executeUpdate();
    }
  }

  /** @return true if this transaction inserted the key, false if it was there already */
  abstract boolean claim(Connection connection, String requestKey, PlaceOrder order, boolean pending)
      throws SQLException;

  String selectEarlierSql() {
    return "SELECT order_id, total_cents FROM " + keyTable.table + " WHERE " + keyTable.byKey;
  }

  /**
   * Inserts the key's row: with the response ({@code pending} false) or with none yet (order id and total 0, written
   * by an UPDATE after the work). In idem_record's shape, with the payload's fingerprint, computed as idem computes
   * it: a reused key with another payload can only be refused by comparing it.
   */
  boolean insertKey(Connection connection, String sql, String requestKey, PlaceOrder order, boolean pending)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(sql)) {
      long now = System.currentTimeMillis();
      insert.setString(1, requestKey);
      insert.setLong(2, pending ? 0 : order.orderId());
      insert.setLong(3, pending ? 0 : order.totalCents());
      insert.setLong(4, now);
      if (keyTable == KeyTable.IDEM_SHAPED) {
        // A key claimed before its work is PENDING until its completion: a row committed early (DDL in the work)
        // then tells a retry that the work may not have finished.
        insert.setString(5, pending ? "PENDING" : "COMPLETED");
        insert.setString(6, HandWrittenReplay.fingerprint(order));
        insert.setLong(7, now + 86_400_000L);
      }
      return insert.executeUpdate() == 1;
    }
  }

  private static OrderReceipt insertOrder(Connection connection, PlaceOrder order) throws SQLException {
    OrderRows.insert(connection, order);
    return new OrderReceipt(order.orderId(), order.totalCents());
  }

  private OrderReceipt readEarlier(Connection connection, String requestKey) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(selectEarlierSql())) {
      select.setString(1, requestKey);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException("Key " + requestKey + " conflicted but is gone");
        }
        return new OrderReceipt(row.getLong(1), row.getLong(2));
      }
    }
  }

  private static final class Postgres extends HandWrittenOrders {
    private final String claim;

    Postgres(DataSource dataSource, KeyTable keyTable, TransactionStart transactionStart) {
      super(dataSource, keyTable, transactionStart);
      this.claim = "INSERT INTO " + keyTable.table + " " + keyTable.columns() + " VALUES " + keyTable.valuesClause()
          + " ON CONFLICT DO NOTHING";
    }

    @Override
    boolean claim(Connection connection, String requestKey, PlaceOrder order, boolean pending) throws SQLException {
      // A duplicate-key error would abort the whole PostgreSQL transaction; DO NOTHING reports 0 rows instead.
      return insertKey(connection, claim, requestKey, order, pending);
    }

    @Override
    String onConflictDoNothing() {
      return " ON CONFLICT DO NOTHING";
    }
  }

  private static final class MariaDb extends HandWrittenOrders {
    private final String claim;

    MariaDb(DataSource dataSource, KeyTable keyTable, TransactionStart transactionStart) {
      super(dataSource, keyTable, transactionStart);
      this.claim = "INSERT IGNORE INTO " + keyTable.table + " " + keyTable.columns() + " VALUES " + keyTable.valuesClause();
    }

    @Override
    boolean claim(Connection connection, String requestKey, PlaceOrder order, boolean pending) throws SQLException {
      return insertKey(connection, claim, requestKey, order, pending);
    }

    @Override
    String insertIgnore() {
      return "IGNORE ";
    }

    @Override
    String selectEarlierSql() {
      // Under REPEATABLE READ a plain read could use a snapshot older than the competing commit.
      return super.selectEarlierSql() + " LOCK IN SHARE MODE";
    }
  }

  private static final class H2 extends HandWrittenOrders {
    private final String claim;

    H2(DataSource dataSource, KeyTable keyTable, TransactionStart transactionStart) {
      super(dataSource, keyTable, transactionStart);
      this.claim = "INSERT INTO " + keyTable.table + " " + keyTable.columns() + " VALUES " + keyTable.valuesClause();
    }

    @Override
    boolean claim(Connection connection, String requestKey, PlaceOrder order, boolean pending) throws SQLException {
      // H2 rolls back only the failed statement, so the duplicate can be caught and the transaction goes on.
      try {
        return insertKey(connection, claim, requestKey, order, pending);
      } catch (SQLException e) {
        if ("23505".equals(e.getSQLState())) {
          return false;
        }
        throw e;
      }
    }
  }
}
