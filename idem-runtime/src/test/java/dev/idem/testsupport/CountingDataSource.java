package dev.idem.testsupport;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** Wraps a DataSource and counts connections obtained and statements executed through them. */
public final class CountingDataSource implements DataSource {

  private final DataSource target;
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong statements = new AtomicLong();

  public CountingDataSource(DataSource target) {
    this.target = target;
  }

  public long connectionsObtained() {
    return connections.get();
  }

  public long statementsExecuted() {
    return statements.get();
  }

  public void reset() {
    connections.set(0);
    statements.set(0);
  }

  @Override
  public Connection getConnection() throws SQLException {
    return count(target.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return count(target.getConnection(username, password));
  }

  private Connection count(Connection connection) {
    connections.incrementAndGet();
    return (Connection) proxy(Connection.class, connection);
  }

  private Object proxy(Class<?> type, Object delegate) {
    InvocationHandler handler = (proxy, method, args) -> {
      if (method.getName().startsWith("execute")) {
        statements.incrementAndGet();
      }
      Object result = invoke(delegate, method, args);
      if (result instanceof java.sql.PreparedStatement || result instanceof java.sql.CallableStatement) {
        return proxy(java.sql.PreparedStatement.class, result);
      }
      if (result instanceof Statement) {
        return proxy(Statement.class, result);
      }
      return result;
    };
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler);
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
