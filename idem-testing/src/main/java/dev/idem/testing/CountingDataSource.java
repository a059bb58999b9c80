package dev.idem.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Wraps a DataSource and counts what the code above it asks of JDBC: connections obtained, statements executed,
 * and separately the transaction calls (commit, rollback, setSavepoint/releaseSavepoint, setAutoCommit) and the
 * statements executed in auto-commit mode, each of which the database commits on its own. Its proxies cost time:
 * use it in tests and counting passes, never while timing.
 */
public final class CountingDataSource implements DataSource {

  /**
   * A snapshot of the counters.
   *
   * @param connections connections obtained
   * @param statements statements executed ({@code execute*} calls)
   * @param autoCommitStatements of those, the ones executed in auto-commit mode
   * @param commits {@code commit()} calls
   * @param rollbacks {@code rollback()} calls, to a savepoint or not
   * @param savepoints {@code setSavepoint} and {@code releaseSavepoint} calls
   * @param autoCommitChanges {@code setAutoCommit} calls
   */
  public record Counts(long connections, long statements, long autoCommitStatements, long commits, long rollbacks,
      long savepoints, long autoCommitChanges) {

    /**
     * @param earlier an earlier snapshot of the same data source
     * @return what happened since {@code earlier}
     */
    public Counts minus(Counts earlier) {
      return new Counts(connections - earlier.connections, statements - earlier.statements,
          autoCommitStatements - earlier.autoCommitStatements, commits - earlier.commits,
          rollbacks - earlier.rollbacks, savepoints - earlier.savepoints,
          autoCommitChanges - earlier.autoCommitChanges);
    }
  }

  /** A connection's auto-commit mode as the code above set it, shared with its statements' proxies. */
  private static final class Mode {
    volatile boolean autoCommit;
    /**
     * Inside a transaction opened with a {@code START TRANSACTION} statement on a connection in auto-commit mode,
     * until a {@code COMMIT} or {@code ROLLBACK} statement: its statements do not commit on their own.
     */
    volatile boolean statementTransaction;
  }

  /** The SQL of every statement executed, in order, since the start or the last {@link #reset()}. */
  private final List<String> executedSql = Collections.synchronizedList(new ArrayList<>());

  private final DataSource target;
  private final LongAdder connections = new LongAdder();
  private final LongAdder statements = new LongAdder();
  private final LongAdder autoCommitStatements = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder rollbacks = new LongAdder();
  private final LongAdder savepoints = new LongAdder();
  private final LongAdder autoCommitChanges = new LongAdder();

  /** @param target the data source whose use is counted */
  public CountingDataSource(DataSource target) {
    this.target = target;
  }

  /** @return a snapshot of every counter */
  public Counts counts() {
    return new Counts(connections.sum(), statements.sum(), autoCommitStatements.sum(), commits.sum(),
        rollbacks.sum(), savepoints.sum(), autoCommitChanges.sum());
  }

  /** @return connections obtained since the start or the last {@link #reset()} */
  public long connectionsObtained() {
    return connections.sum();
  }

  /** @return statements executed since the start or the last {@link #reset()} */
  public long statementsExecuted() {
    return statements.sum();
  }

  /**
   * @return the SQL of the statements executed since the start or the last {@link #reset()}, in order (a prepared
   *     statement's as prepared)
   */
  public List<String> executedSql() {
    synchronized (executedSql) {
      return List.copyOf(executedSql);
    }
  }

  /** Sets every counter to zero; call it while nothing uses the data source. */
  public void reset() {
    executedSql.clear();
    for (LongAdder counter : new LongAdder[] {connections, statements, autoCommitStatements, commits, rollbacks,
        savepoints, autoCommitChanges}) {
      counter.reset();
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    return counted(target.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return counted(target.getConnection(username, password));
  }

  private Connection counted(Connection connection) throws SQLException {
    connections.increment();
    Mode mode = new Mode();
    mode.autoCommit = connection.getAutoCommit();
    return (Connection) proxy(Connection.class, connection, mode, null);
  }

  private Object proxy(Class<?> type, Object delegate, Mode mode, String preparedSql) {
    InvocationHandler handler = (proxy, method, args) -> {
      count(method.getName(), args, mode, preparedSql);
      Object result = invoke(delegate, method, args);
      String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
      if (result instanceof CallableStatement) {
        return proxy(CallableStatement.class, result, mode, sql);
      }
      if (result instanceof PreparedStatement) {
        return proxy(PreparedStatement.class, result, mode, sql);
      }
      if (result instanceof Statement) {
        return proxy(Statement.class, result, mode, null);
      }
      return result;
    };
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler);
  }

  private void count(String method, Object[] args, Mode mode, String preparedSql) {
    if (method.startsWith("execute")) {
      statements.increment();
      String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : preparedSql;
      executedSql.add(sql);
      String control = sql == null ? "" : sql.strip().toUpperCase(Locale.ROOT);
      if (control.equals("START TRANSACTION") || control.equals("BEGIN")) {
        mode.statementTransaction = true;
      } else if (control.equals("COMMIT") || control.equals("ROLLBACK")) {
        mode.statementTransaction = false;
      } else if (mode.autoCommit && !mode.statementTransaction) {
        autoCommitStatements.increment();
      }
      return;
    }
    switch (method) {
      case "commit" -> commits.increment();
      case "rollback" -> rollbacks.increment();
      case "setSavepoint", "releaseSavepoint" -> savepoints.increment();
      case "setAutoCommit" -> {
        autoCommitChanges.increment();
        mode.autoCommit = (Boolean) args[0];
      }
      default -> { }
    }
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return target.isWrapperFor(iface);
  }
}
