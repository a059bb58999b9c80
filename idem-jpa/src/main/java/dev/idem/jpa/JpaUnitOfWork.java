package dev.idem.jpa;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.RollbackException;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One EntityManager and one resource-local transaction per unit of work, bound to the thread while it runs: for
 * applications without a container that manages EntityManagers. Its {@link #transactions() binding} finds that
 * EntityManager, so generated services called inside {@link #inTransaction} record in its transaction, and delegates
 * write through {@link #entityManager()}.
 *
 * <pre>{@code
 * JpaUnitOfWork jpa = new JpaUnitOfWork(entityManagerFactory);
 * IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).joinTransactions(jpa.transactions()).build();
 * Order order = jpa.inTransaction(em -> orders.place(requestId, command));   // entity and record: one commit
 * }</pre>
 *
 * <p>Thread-safe; one per EntityManagerFactory.
 */
public final class JpaUnitOfWork {

  private final EntityManagerFactory factory;
  private final ThreadLocal<EntityManager> current = new ThreadLocal<>();
  private final JpaTransactions transactions = JpaTransactions.of(current::get);

  /** @param factory where each unit of work gets its EntityManager */
  public JpaUnitOfWork(EntityManagerFactory factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  /** @return the binding to pass to {@code IdemRuntime.Builder.joinTransactions} */
  public JpaTransactions transactions() {
    return transactions;
  }

  /** @return the EntityManager of the unit of work running on this thread, or null */
  public EntityManager currentEntityManager() {
    return current.get();
  }

  /**
   * @return the EntityManager of the unit of work running on this thread, for delegates
   * @throws IllegalStateException outside {@link #inTransaction}
   */
  public EntityManager entityManager() {
    EntityManager entityManager = current.get();
    if (entityManager == null) {
      throw new IllegalStateException("No JPA unit of work is running on this thread: call this inside"
          + " JpaUnitOfWork.inTransaction(...), and call JPA-backed idem services there too");
    }
    return entityManager;
  }

  /**
   * Runs {@code work} in a new EntityManager and transaction, committed when it returns and rolled back when it
   * throws; inside another unit of work on this thread, joins that one.
   *
   * @param work the work
   * @param <T> its result type
   * @return its result
   * @throws RollbackException if the transaction was marked rollback-only (e.g. an idem command's body failed in it
   *     and the work caught the exception): it is rolled back, never silently
   */
  public <T> T inTransaction(Function<EntityManager, T> work) {
    Objects.requireNonNull(work, "work");
    EntityManager joined = current.get();
    if (joined != null) {
      return work.apply(joined);
    }
    EntityManager entityManager = factory.createEntityManager();
    current.set(entityManager);
    try {
      EntityTransaction transaction = entityManager.getTransaction();
      transaction.begin();
      T result;
      try {
        result = work.apply(entityManager);
      } catch (RuntimeException | Error e) {
        rollbackQuietly(transaction, e);
        throw e;
      }
      if (transaction.getRollbackOnly()) {
        transaction.rollback();
        throw new RollbackException("The unit of work was marked rollback-only (a failed JPA operation, or an idem"
            + " command whose body failed inside it) and was rolled back: nothing of it was committed");
      }
      transaction.commit();
      return result;
    } finally {
      current.remove();
      entityManager.close();
    }
  }

  /**
   * {@link #inTransaction(Function)} for work without a result.
   *
   * @param work the work
   */
  public void runInTransaction(Consumer<EntityManager> work) {
    Objects.requireNonNull(work, "work");
    inTransaction(entityManager -> {
      work.accept(entityManager);
      return null;
    });
  }

  private static void rollbackQuietly(EntityTransaction transaction, Throwable failure) {
    try {
      if (transaction.isActive()) {
        transaction.rollback();
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }
}
