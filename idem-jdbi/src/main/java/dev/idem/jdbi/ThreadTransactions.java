package dev.idem.jdbi;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.transaction.TransactionHandler;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * The application's {@link TransactionHandler}, unchanged, that also notes which handles have a transaction open on
 * each thread: JDBI's handle scope knows only the handles of {@code jdbi.withHandle}/{@code inTransaction} calls, not a
 * transaction begun on a handle from {@code jdbi.open()} ({@code handle.useTransaction(..)}, {@code handle.begin()}),
 * which idem must join just the same. Every call is forwarded to the wrapped handler, specialized per handle as JDBI
 * asks; only the bookkeeping is added.
 */
final class ThreadTransactions implements TransactionHandler {

  /** The handles with a transaction begun on this thread, innermost last; a handle may appear more than once. */
  private final ThreadLocal<Deque<Handle>> open;
  private final TransactionHandler delegate;

  ThreadTransactions(TransactionHandler delegate) {
    this(delegate, ThreadLocal.withInitial(ArrayDeque::new));
  }

  private ThreadTransactions(TransactionHandler delegate, ThreadLocal<Deque<Handle>> open) {
    this.delegate = delegate;
    this.open = open;
  }

  /**
   * The innermost handle with a transaction open on this thread, or null. Entries whose transaction ended elsewhere
   * (a handle closed, or committed through its connection) are dropped on the way.
   */
  Handle current() {
    Deque<Handle> handles = open.get();
    for (Iterator<Handle> it = handles.descendingIterator(); it.hasNext(); ) {
      Handle handle = it.next();
      if (!handle.isClosed() && handle.isInTransaction()) {
        return handle;
      }
      it.remove();
    }
    open.remove();
    return null;
  }

  private void opened(Handle handle) {
    open.get().addLast(handle);
  }

  private void ended(Handle handle) {
    Deque<Handle> handles = open.get();
    handles.removeLastOccurrence(handle);
    if (handles.isEmpty()) {
      open.remove();
    }
  }

  @Override
  public TransactionHandler specialize(Handle handle) throws SQLException {
    return new ThreadTransactions(delegate.specialize(handle), open);
  }

  @Override
  public void begin(Handle handle) {
    delegate.begin(handle);
    opened(handle);
  }

  @Override
  public void commit(Handle handle) {
    try {
      delegate.commit(handle);
    } finally {
      ended(handle);
    }
  }

  @Override
  public void rollback(Handle handle) {
    try {
      delegate.rollback(handle);
    } finally {
      ended(handle);
    }
  }

  @Override
  public boolean isInTransaction(Handle handle) {
    return delegate.isInTransaction(handle);
  }

  @Override
  public void savepoint(Handle handle, String name) {
    delegate.savepoint(handle, name);
  }

  @Override
  public void rollbackToSavepoint(Handle handle, String name) {
    delegate.rollbackToSavepoint(handle, name);
  }

  @Override
  public void releaseSavepoint(Handle handle, String name) {
    delegate.releaseSavepoint(handle, name);
  }

  @Override
  public <R, X extends Exception> R inTransaction(Handle handle, HandleCallback<R, X> callback) throws X {
    // Noted for the callback's duration whether or not the wrapped handler begins through this one.
    opened(handle);
    try {
      return delegate.inTransaction(handle, callback);
    } finally {
      ended(handle);
    }
  }

  @Override
  public <R, X extends Exception> R inTransaction(Handle handle, TransactionIsolationLevel level,
      HandleCallback<R, X> callback) throws X {
    opened(handle);
    try {
      return delegate.inTransaction(handle, level, callback);
    } finally {
      ended(handle);
    }
  }
}
