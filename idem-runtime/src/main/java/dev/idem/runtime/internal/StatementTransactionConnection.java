package dev.idem.runtime.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.concurrent.Executor;

/**
 * A connection in auto-commit mode on which idem's own transactions are opened with a {@code START TRANSACTION}
 * statement and ended with {@code COMMIT} or {@code ROLLBACK} statements, for dialects whose driver sends every
 * {@code setAutoCommit(..)} as a round trip of its own (MariaDB Connector/J, MySQL Connector/J): one round trip
 * fewer per transaction than switching auto-commit off and on again (see
 * {@link SqlDialect#opensTransactionsWithStatement()}). Only for connections that arrive from the pool with
 * auto-commit on, and never for the application's transactions, which idem joins and does not end.
 *
 * <p>To idem's code it behaves as a JDBC connection whose auto-commit is switched: {@code setAutoCommit(false)}
 * opens the transaction, {@link #getAutoCommit()} answers false while it is open, {@code commit()} and
 * {@code rollback()} end it. They are statements, not the driver's {@code commit()} / {@code rollback()}: MySQL
 * Connector/J throws on those while auto-commit is on; both drivers follow the server status of the statement's OK
 * packet, so their own transaction state stays right. Two deliberate differences from a plain connection, because a
 * transaction still open there is one whose commit or rollback failed: {@code setAutoCommit(true)} rolls it back
 * rather than committing it, and {@link #close()} rolls it back before the connection goes back to the pool (a pool
 * does not roll back a connection that is in auto-commit mode).
 *
 * <p>A statement of the body that commits implicitly (DDL) ends the server's transaction; the ones after it then
 * commit on their own, each, because the session is in auto-commit mode (with {@code setAutoCommit(false)} they ran
 * in a new implicit transaction). {@code COMMIT} and {@code ROLLBACK} afterwards are harmless no-ops.
 */
final class StatementTransactionConnection extends ForwardingConnection {

  /** Sends START TRANSACTION, COMMIT and ROLLBACK; made on first use, closed with the connection. */
  private Statement control;
  /** Whether this wrapper opened a transaction that no COMMIT or ROLLBACK has ended yet. */
  private boolean open;
  /** Numbers the unnamed savepoints set on this connection. */
  private int savepoints;

  StatementTransactionConnection(Connection connection) {
    super(connection);
  }

  private void send(String sql) throws SQLException {
    if (control == null) {
      control = connection.createStatement();
    }
    control.execute(sql);
  }

  @Override
  public void setAutoCommit(boolean autoCommit) throws SQLException {
    if (!autoCommit) {
      if (!open) {
        send("START TRANSACTION");
        open = true;
      }
    } else if (open) {
      rollback(); // idem ends its transactions before switching back: one still open here failed to end
    }
  }

  @Override
  public boolean getAutoCommit() {
    return !open;
  }

  @Override
  public void commit() throws SQLException {
    if (open) {
      send("COMMIT");
      open = false;
    }
  }

  @Override
  public void rollback() throws SQLException {
    if (open) {
      send("ROLLBACK");
      open = false;
    }
  }

  @Override
  public void abort(Executor executor) throws SQLException {
    open = false;
    connection.abort(executor);
  }

  /** Rolls back a transaction still open (see the class comment), then gives the connection back. */
  @Override
  public void close() throws SQLException {
    try {
      if (open && !connection.isClosed()) {
        rollback();
      }
    } finally {
      open = false;
      try {
        if (control != null) {
          control.close();
        }
      } finally {
        connection.close();
      }
    }
  }


  // Savepoints inside a transaction this wrapper opened are statements too: the driver's own methods may refuse
  // to work while its auto-commit flag is on (MySQL Connector/J checks it for savepoints as for commit()), and the
  // statements are what MariaDB Connector/J sends for them anyway, so they cost no extra round trip.

  @Override
  public Savepoint setSavepoint() throws SQLException {
    if (!open) {
      return connection.setSavepoint();
    }
    StatementSavepoint savepoint = new StatementSavepoint(++savepoints, null);
    send("SAVEPOINT " + savepoint.identifier());
    return savepoint;
  }

  @Override
  public Savepoint setSavepoint(String name) throws SQLException {
    if (!open) {
      return connection.setSavepoint(name);
    }
    StatementSavepoint savepoint = new StatementSavepoint(0, java.util.Objects.requireNonNull(name, "name"));
    send("SAVEPOINT " + savepoint.identifier());
    return savepoint;
  }

  @Override
  public void rollback(Savepoint savepoint) throws SQLException {
    if (savepoint instanceof StatementSavepoint ours) {
      send("ROLLBACK TO SAVEPOINT " + ours.identifier());
    } else {
      connection.rollback(savepoint);
    }
  }

  @Override
  public void releaseSavepoint(Savepoint savepoint) throws SQLException {
    if (savepoint instanceof StatementSavepoint ours) {
      send("RELEASE SAVEPOINT " + ours.identifier());
    } else {
      connection.releaseSavepoint(savepoint);
    }
  }

  /** A savepoint set by a {@code SAVEPOINT} statement: numbered (unnamed) or named, as JDBC distinguishes them. */
  private static final class StatementSavepoint implements Savepoint {
    private final int id;
    private final String name;

    StatementSavepoint(int id, String name) {
      this.id = id;
      this.name = name;
    }

    /** The quoted identifier the statements use; a name's backticks doubled. */
    String identifier() {
      return name == null ? "`idem_savepoint_" + id + "`" : "`" + name.replace("`", "``") + "`";
    }

    @Override
    public int getSavepointId() throws SQLException {
      if (name != null) {
        throw new SQLException("A named savepoint has no id; use getSavepointName()");
      }
      return id;
    }

    @Override
    public String getSavepointName() throws SQLException {
      if (name == null) {
        throw new SQLException("An unnamed savepoint has no name; use getSavepointId()");
      }
      return name;
    }
  }

}
