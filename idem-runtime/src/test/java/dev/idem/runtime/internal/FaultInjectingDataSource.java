package dev.idem.runtime.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A DataSource that injects faults at chosen statements or commits, in-process: a statement that fails (optionally
 * with its connection killed, as a cut would leave it), a commit that fails before committing, a commit whose
 * acknowledgement is lost after the database committed (at {@code commit()}, or at a statement that ends with its
 * COMMIT). Each fault fires a given number of times. The network-level
 * equivalents (a TCP proxy cutting connections) live in the fault suite; this one pins the exact statement.
 */
final class FaultInjectingDataSource {

  /** What a fault does when it fires. */
  enum Effect {
    /** The statement fails; the connection stays usable. */
    FAIL,
    /** The connection dies (its physical connection is closed), then the statement fails. */
    KILL_CONNECTION,
    /** commit(): rolls back, then fails. */
    COMMIT_FAILS,
    /** commit(): commits, then fails as if the acknowledgement were lost. */
    COMMIT_ACK_LOST
  }

  private final DataSource target;
  private volatile Predicate<String> statementMatcher = sql -> false;
  private volatile Effect statementEffect = Effect.FAIL;
  private volatile Effect commitEffect;
  private final AtomicInteger remaining = new AtomicInteger();
  final AtomicInteger fired = new AtomicInteger();

  FaultInjectingDataSource(DataSource target) {
    this.target = target;
  }

  /** The next {@code times} executions of a statement whose SQL matches fail with {@code effect}. */
  FaultInjectingDataSource failStatements(Predicate<String> sql, Effect effect, int times) {
    statementMatcher = sql;
    statementEffect = effect;
    commitEffect = null;
    remaining.set(times);
    return this;
  }

  /** The next {@code times} commits fail with {@code effect}. */
  FaultInjectingDataSource failCommits(Effect effect, int times) {
    statementMatcher = sql -> false;
    commitEffect = effect;
    remaining.set(times);
    return this;
  }

  void reset() {
    statementMatcher = sql -> false;
    commitEffect = null;
    remaining.set(0);
    fired.set(0);
  }

  DataSource dataSource() {
    return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          Object result = invoke(target, method, args);
          return result instanceof Connection connection ? connection(connection) : result;
        });
  }

  private boolean fire() {
    if (remaining.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      fired.incrementAndGet();
      return true;
    }
    return false;
  }

  private Connection connection(Connection real) {
    InvocationHandler handler = (proxy, method, args) -> {
      String name = method.getName();
      if (name.equals("commit") && commitEffect != null && fire()) {
        if (commitEffect == Effect.COMMIT_ACK_LOST) {
          real.commit();
          throw new SQLException("injected: the commit's acknowledgement was lost", "08006");
        }
        real.rollback();
        throw new SQLException("injected: the commit failed", "08006");
      }
      Object result = invoke(real, method, args);
      if (name.equals("prepareStatement") && result instanceof PreparedStatement statement) {
        return statement(real, statement, (String) args[0]);
      }
      if (name.equals("createStatement") && result instanceof Statement statement) {
        return controlStatement(statement);
      }
      return result;
    };
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        handler);
  }

  private PreparedStatement statement(Connection connection, PreparedStatement real, String sql) {
    InvocationHandler handler = (proxy, method, args) -> {
      String name = method.getName();
      boolean executes = (name.equals("executeUpdate") || name.equals("execute") || name.equals("executeQuery"))
          && (args == null || args.length == 0);
      // A statement that commits (PostgreSQL's completion in a transaction idem owns) is where the commit is.
      if (executes && commitEffect != null && sql.endsWith("; COMMIT") && fire()) {
        if (commitEffect == Effect.COMMIT_ACK_LOST) {
          invoke(real, method, args);
          throw new SQLException("injected: the commit's acknowledgement was lost", "08006");
        }
        connection.rollback();
        throw new SQLException("injected: the commit failed", "08006");
      }
      if (executes && statementMatcher.test(sql) && fire()) {
        if (statementEffect == Effect.KILL_CONNECTION) {
          connection.unwrap(Connection.class).close(); // the physical connection: the pool's proxy is now dead
          throw new SQLException("injected: the connection was cut during " + sql, "08006");
        }
        throw new SQLException("injected: the statement failed: " + sql, "HY000", 1153);
      }
      return invoke(real, method, args);
    };
    return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {PreparedStatement.class}, handler);
  }

  /**
   * A plain statement: where idem ends its own transaction with a COMMIT statement (MariaDB, on a connection lent in
   * auto-commit mode), that statement is where the commit is.
   */
  private Statement controlStatement(Statement real) {
    InvocationHandler handler = (proxy, method, args) -> {
      boolean commits = method.getName().equals("execute") && args != null && args.length == 1
          && "COMMIT".equals(args[0]);
      if (commits && commitEffect != null && fire()) {
        if (commitEffect == Effect.COMMIT_ACK_LOST) {
          invoke(real, method, args);
          throw new SQLException("injected: the commit's acknowledgement was lost", "08006");
        }
        real.execute("ROLLBACK");
        throw new SQLException("injected: the commit failed", "08006");
      }
      return invoke(real, method, args);
    };
    return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class},
        handler);
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
