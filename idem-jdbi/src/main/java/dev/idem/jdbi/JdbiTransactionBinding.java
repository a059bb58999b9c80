package dev.idem.jdbi;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransactionBinding;
import java.sql.Connection;
import java.util.Objects;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.extension.HandleSupplier;

/**
 * Lets idem join the transaction of a JDBI 3 {@link Handle}: a generated service called inside
 * {@code jdbi.inTransaction(handle -> service.pay(..))} (or {@code useTransaction}) records its key on the handle's
 * connection, inside a savepoint, so that the record commits or rolls back with what the delegate wrote through the
 * same {@code jdbi} (nested {@code jdbi.useHandle(..)}, {@code withHandle(..)} and {@code inTransaction(..)} calls on
 * one thread share that handle). A transaction begun on a handle from {@code jdbi.open()}
 * ({@code handle.useTransaction(..)}, {@code handle.inTransaction(..)}, {@code handle.begin()}) on the calling thread
 * is joined too; its delegate must then write through that handle or {@link IdemRuntime#currentConnection()}, since
 * a nested {@code jdbi.withHandle} opens another handle there (JDBI shares only the handles of its own callbacks).
 *
 * <pre>{@code
 * Jdbi jdbi = Jdbi.create(dataSource);
 * IdemRuntime runtime = IdemRuntime.builder()
 *     .dataSource(dataSource)
 *     .joinTransactions(JdbiTransactionBinding.of(jdbi))
 *     .build();
 * }</pre>
 *
 * <p>How it finds the transaction: JDBI keeps the handle of the outermost {@code withHandle}/{@code inTransaction}
 * call of each thread in its {@link Jdbi#getHandleScope() handle scope}; the binding joins that handle's transaction
 * when {@link Handle#isInTransaction()} says one is open. For the other handles, {@link #of} wraps the Jdbi's
 * {@link org.jdbi.v3.core.transaction.TransactionHandler} (whatever it is; every call is forwarded) with one that
 * notes which handle began a transaction on which thread: handles opened before {@code of(jdbi)}, or after the
 * handler was replaced with {@code jdbi.setTransactionHandler}, are not seen, so configure the handler first.
 * Outside a JDBI transaction, idem begins its own, as without
 * a binding: then a delegate must write through {@link IdemRuntime#currentConnection()} (e.g.
 * {@code Jdbi.open(runtime.currentConnection())}), since a new JDBI handle would be another connection, outside
 * idem's transaction. Records are cached, and completions reported, once JDBI commits ({@link Handle#afterCommit}).
 */
public final class JdbiTransactionBinding implements TransactionBinding {

  private final Jdbi jdbi;
  private final ThreadTransactions threadTransactions;

  private JdbiTransactionBinding(Jdbi jdbi, ThreadTransactions threadTransactions) {
    this.jdbi = jdbi;
    this.threadTransactions = threadTransactions;
  }

  /**
   * The binding for {@code jdbi}, whose data source must reach the same database as the runtime's.
   *
   * @param jdbi the application's Jdbi
   * @return the binding, for {@link IdemRuntime.Builder#joinTransactions}
   */
  public static JdbiTransactionBinding of(Jdbi jdbi) {
    Objects.requireNonNull(jdbi, "jdbi");
    ThreadTransactions threadTransactions;
    synchronized (jdbi) {
      if (jdbi.getTransactionHandler() instanceof ThreadTransactions installed) {
        threadTransactions = installed; // a second binding of the same Jdbi: one wrapper is enough
      } else {
        threadTransactions = new ThreadTransactions(jdbi.getTransactionHandler());
        jdbi.setTransactionHandler(threadTransactions);
      }
    }
    return new JdbiTransactionBinding(jdbi, threadTransactions);
  }

  /**
   * The handle of this thread's JDBI transaction, or null if the thread has none: the handle of the thread's
   * {@code jdbi.inTransaction} call if it is in a transaction, else the innermost handle from {@code jdbi.open()}
   * that began one on this thread.
   */
  private Handle currentTransactionHandle() {
    HandleSupplier supplier = jdbi.getHandleScope().get();
    Handle scoped = supplier == null ? null : supplier.getHandle();
    if (scoped != null && !scoped.isClosed() && scoped.isInTransaction()) {
      return scoped;
    }
    return threadTransactions.current();
  }

  @Override
  public Connection currentConnection() {
    Handle handle = currentTransactionHandle();
    return handle == null ? null : handle.getConnection();
  }

  /** Runs {@code action} when the JDBI transaction commits ({@link Handle#afterCommit}); never if it rolls back. */
  @Override
  public boolean afterCommit(Runnable action) {
    Handle handle = currentTransactionHandle();
    if (handle == null) {
      return false;
    }
    handle.afterCommit(action);
    return true;
  }
}
