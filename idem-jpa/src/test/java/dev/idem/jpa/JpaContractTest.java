package dev.idem.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransitionResult;
import dev.idem.testing.DatabaseContract;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.RollbackException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generated services inside the application's JPA transaction, with real Hibernate ORM 7 bootstrapped
 * programmatically: a delegate that persists with the EntityManager records in the same transaction as its entity.
 * One subclass per database.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class JpaContractTest extends DatabaseContract {

  /** Held, so that the level stays (JUL keeps loggers weakly): Hibernate's start-up lines drown the tests' output. */
  private static final java.util.logging.Logger HIBERNATE_LOG = java.util.logging.Logger.getLogger("org.hibernate");

  static {
    HIBERNATE_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private EntityManagerFactory entityManagerFactory;
  private JpaUnitOfWork jpa;
  private IdemRuntime runtime;
  private JpaBookings delegate;
  private Bookings bookings;
  private BookingFlow flow;

  @Override
  protected void prepare() {
    entityManagerFactory = new HibernatePersistenceConfiguration("idem-jpa-" + database.name())
        .managedClass(Booking.class)
        .property("jakarta.persistence.nonJtaDataSource", database.dataSource())
        .schemaToolingAction(Action.CREATE)
        .createEntityManagerFactory();
    jpa = new JpaUnitOfWork(entityManagerFactory);
    runtime = IdemRuntime.builder().dataSource(database.dataSource()).joinTransactions(jpa.transactions()).build();
    runtime.createSchema();
    delegate = new JpaBookings(jpa);
    bookings = new Bookings_Idempotent(delegate, runtime);
    flow = new BookingFlow_Idempotent(runtime);
  }

  @AfterAll
  void closeEntityManagerFactory() {
    if (entityManagerFactory != null) {
      entityManagerFactory.close();
    }
  }

  private static String key() {
    return "k-" + UUID.randomUUID();
  }

  @Test
  void theEntityAndTheRecordCommitInTheApplicationsTransaction() {
    String key = key();
    long id = jpa.inTransaction(em -> {
      long booked = bookings.book(key, "ada");
      // Inside the JPA transaction, before its commit: neither the entity nor the record is visible to others.
      assertEquals(0, bookingRows(key));
      assertEquals(0, records("jpa.bookings.book", key));
      assertSame(em.find(Booking.class, booked), em.find(Booking.class, booked), "the entity is managed");
      return booked;
    });
    assertEquals(1, bookingRows(key));
    assertEquals(1, records("jpa.bookings.book", key));
    assertEquals("ada", jpa.inTransaction(em -> em.find(Booking.class, id).getGuest()));
  }

  /** An outbox event written in the JPA transaction commits with the entity, or rolls back with it. */
  @Test
  void anOutboxEventCommitsAndRollsBackWithTheJpaTransaction() {
    BookingEvents events = new BookingEvents_Outbox(runtime);
    String committed = key();
    jpa.runInTransaction(em -> {
      bookings.book(committed, "ada");
      events.booked(new BookingEvents.Booked(committed, "ada"));
      assertEquals(0, count("SELECT COUNT(*) FROM idem_outbox WHERE partition_key = ?", committed), "not before commit");
    });
    String rolledBack = key();
    assertThrows(RuntimeException.class, () -> jpa.runInTransaction(em -> {
      bookings.book(rolledBack, "bob");
      events.booked(new BookingEvents.Booked(rolledBack, "bob"));
      throw new RuntimeException("the application fails after the event");
    }));
    assertEquals(1, count("SELECT COUNT(*) FROM idem_outbox WHERE partition_key = ?", committed));
    assertEquals(0, count("SELECT COUNT(*) FROM idem_outbox WHERE partition_key = ?", rolledBack));
    assertEquals(0, bookingRows(rolledBack));
  }

  @Test
  void aRollbackOfTheApplicationsTransactionUndoesTheEntityAndTheRecord() {
    String key = key();
    int calls = delegate.bookCalls.get();
    RuntimeException failure = assertThrows(RuntimeException.class, () -> jpa.runInTransaction(em -> {
      bookings.book(key, "ada");
      throw new RuntimeException("the application fails after the command");
    }));
    assertEquals("the application fails after the command", failure.getMessage());
    assertEquals(0, bookingRows(key));
    assertEquals(0, records("jpa.bookings.book", key));

    // Nothing was recorded: the retry runs the body for real.
    jpa.runInTransaction(em -> bookings.book(key, "ada"));
    assertEquals(calls + 2, delegate.bookCalls.get());
    assertEquals(1, bookingRows(key));
    assertEquals(1, records("jpa.bookings.book", key));
  }

  @Test
  void aRetryReplaysWithoutASecondEntity() {
    String key = key();
    int calls = delegate.bookCalls.get();
    long first = jpa.inTransaction(em -> bookings.book(key, "ada"));
    long again = jpa.inTransaction(em -> bookings.book(key, "ada"));
    assertEquals(first, again);
    assertEquals(calls + 1, delegate.bookCalls.get());
    assertEquals(1, bookingRows(key));
  }

  @Test
  void aFailedBodyLeavesNothingAndTheTransactionCanOnlyRollBack() {
    String key = key();
    String before = key();
    // The application persists its own entity, calls the command, whose body persists and throws; the application
    // catches the exception and would commit: the persistence context still holds the body's entity, so the
    // transaction is rollback-only and the unit of work rolls it back, loudly.
    RollbackException rollback = assertThrows(RollbackException.class, () -> jpa.runInTransaction(em -> {
      em.persist(new Booking(before, "own"));
      IllegalStateException failure =
          assertThrows(IllegalStateException.class, () -> bookings.book(key, "boom"));
      assertEquals("the body failed after persisting " + key, failure.getMessage());
      assertTrue(em.getTransaction().getRollbackOnly());
    }));
    assertTrue(rollback.getMessage().contains("rollback-only"), rollback.getMessage());
    assertEquals(0, bookingRows(key));
    assertEquals(0, bookingRows(before));
    assertEquals(0, records("jpa.bookings.book", key));

    // Not caught: the failure reaches the caller of the unit of work unchanged, and nothing is left either.
    assertThrows(IllegalStateException.class, () -> jpa.runInTransaction(em -> bookings.book(key, "boom")));
    assertEquals(0, bookingRows(key));
    assertEquals(0, records("jpa.bookings.book", key));
  }

  @Test
  void aPlainEntityTransactionCommittedAfterTheFailureWritesNothing() {
    // Without JpaUnitOfWork: the application's own EntityTransaction, committed after catching the failure.
    String key = key();
    var em = entityManagerFactory.createEntityManager();
    JpaTransactions binding = JpaTransactions.of(() -> em);
    IdemRuntime own = IdemRuntime.builder().dataSource(database.dataSource()).joinTransactions(binding).build();
    Bookings service = new Bookings_Idempotent(new Bookings() {
      @Override
      public long book(String requestId, String guest) {
        Booking booking = new Booking(requestId, guest);
        em.persist(booking);
        throw new IllegalStateException("failed after persisting");
      }

      @Override
      public long bookIfFree(String requestId, String guest, boolean full) {
        throw new UnsupportedOperationException();
      }

      @Override
      public String charge(String paymentId, long amountCents) {
        throw new UnsupportedOperationException();
      }
    }, own);
    try {
      em.getTransaction().begin();
      assertThrows(IllegalStateException.class, () -> service.book(key, "ada"));
      assertTrue(em.getTransaction().getRollbackOnly());
      // Hibernate's default (JPA transaction compliance off): the commit rolls back and returns normally.
      em.getTransaction().commit();
      assertFalse(em.getTransaction().isActive());
    } finally {
      em.close();
    }
    assertEquals(0, bookingRows(key));
    assertEquals(0, records("jpa.bookings.book", key));
  }

  @Test
  void aBusinessFailureIsRecordedWhileTheBodysEntityIsDropped() {
    String key = key();
    String own = key();
    int calls = delegate.bookIfFreeCalls.get();
    NoRoomException[] thrown = new NoRoomException[1];
    jpa.runInTransaction(em -> {
      em.persist(new Booking(own, "own")); // the application's own write, before the command
      thrown[0] = assertThrows(NoRoomException.class, () -> bookings.bookIfFree(key, "ada", true));
      assertFalse(em.getTransaction().getRollbackOnly(), "the recorded failure must be able to commit");
      assertEquals(0, em.createQuery("select count(b) from Booking b where b.requestId = :key", Long.class)
          .setParameter("key", key).getSingleResult(), "the body's entity is not left behind");
    });
    assertEquals("ada", thrown[0].guest());
    assertEquals(0, bookingRows(key), "the body's entity was dropped");
    assertEquals(1, bookingRows(own), "the application's write before the command committed");
    assertEquals(1, records("jpa.bookings.book-if-free", key), "the business failure is recorded");

    // A retry gets the same failure from the record, without running the body.
    jpa.runInTransaction(em -> {
      NoRoomException replayed = assertThrows(NoRoomException.class, () -> bookings.bookIfFree(key, "ada", true));
      assertEquals("no room for ada", replayed.getMessage());
      assertEquals("ada", replayed.guest());
    });
    assertEquals(calls + 1, delegate.bookIfFreeCalls.get());
  }

  @Test
  void aTransitionRefreshesTheManagedEntity() {
    long id = jpa.inTransaction(em -> bookings.book(key(), "ada"));
    jpa.runInTransaction(em -> {
      Booking managed = em.find(Booking.class, id);
      assertEquals(BookingStatus.HELD, managed.getStatus());
      long version = managed.getVersion();
      assertEquals(TransitionResult.APPLIED, flow.confirm(id));
      // The guarded UPDATE ran on the JDBC connection; the managed instance shows its result, not the old row.
      assertEquals(BookingStatus.CONFIRMED, managed.getStatus());
      assertEquals(version + 1, managed.getVersion());
      // A later change to the entity neither reverts the state nor fails on the version.
      managed.setGuest("grace");
    });
    assertEquals("CONFIRMED|grace", statusAndGuest(id));
    // A repeat in a new transaction is a no-op.
    assertEquals(TransitionResult.ALREADY_APPLIED, jpa.inTransaction(em -> flow.confirm(id)));
  }

  @Test
  void pendingChangesReachTheDatabaseBeforeATransition() {
    long id = jpa.inTransaction(em -> bookings.book(key(), "ada"));
    long versionBefore = jpa.inTransaction(em -> em.find(Booking.class, id).getVersion());
    jpa.runInTransaction(em -> {
      Booking managed = em.find(Booking.class, id);
      managed.setGuest("grace"); // not flushed yet
      assertEquals(TransitionResult.APPLIED, flow.confirm(id));
      assertEquals("grace", managed.getGuest(), "the refresh must not lose the pending change");
      assertEquals(BookingStatus.CONFIRMED, managed.getStatus());
    });
    assertEquals("CONFIRMED|grace", statusAndGuest(id));
    assertEquals(versionBefore + 2, (long) jpa.inTransaction(em -> em.find(Booking.class, id).getVersion()),
        "one version for the application's change, one for the transition");
  }

  @Test
  void aTransitionOfAnEntityThatIsNotLoadedLeavesThePersistenceContextAlone() {
    long id = jpa.inTransaction(em -> bookings.book(key(), "ada"));
    jpa.runInTransaction(em -> {
      assertEquals(TransitionResult.APPLIED, flow.confirm(id));
      assertEquals(BookingStatus.CONFIRMED, em.find(Booking.class, id).getStatus());
    });
  }

  @Test
  void afterCommitActionsRunOnlyOnceTheJpaTransactionCommitted() {
    AtomicBoolean committed = new AtomicBoolean();
    jpa.runInTransaction(em -> {
      bookings.book(key(), "ada");
      runtime.afterCommit(() -> committed.set(true));
      assertFalse(committed.get());
    });
    assertTrue(committed.get());

    AtomicBoolean rolledBack = new AtomicBoolean();
    assertThrows(IllegalStateException.class, () -> jpa.runInTransaction(em -> {
      runtime.afterCommit(() -> rolledBack.set(true));
      throw new IllegalStateException("rolled back");
    }));
    assertFalse(rolledBack.get());
  }

  @Test
  void aClaimCommandRefusesToJoinTheJpaTransaction() {
    String key = key();
    int calls = delegate.chargeCalls.get();
    IllegalStateException refused = assertThrows(IllegalStateException.class,
        () -> jpa.runInTransaction(em -> bookings.charge(key, 500)));
    assertTrue(refused.getMessage().contains("jpa.bookings.charge"), refused.getMessage());
    assertTrue(refused.getMessage().contains("application's transaction"), refused.getMessage());
    assertEquals(calls, delegate.chargeCalls.get());
    assertEquals(0, records("jpa.bookings.charge", key));
    // Outside the JPA transaction it runs in its own, as always.
    assertEquals("charged " + key + " 500", bookings.charge(key, 500));
    assertEquals("charged " + key + " 500", bookings.charge(key, 500));
    assertEquals(calls + 1, delegate.chargeCalls.get());
  }

  @Test
  void withoutAnActiveJpaTransactionIdemUsesItsOwn() {
    var em = entityManagerFactory.createEntityManager();
    try {
      JpaTransactions binding = JpaTransactions.of(() -> em);
      assertEquals(null, binding.currentConnection(), "an EntityManager without an active transaction");
      em.getTransaction().begin();
      assertNotNull(binding.currentConnection());
      em.getTransaction().rollback();
      assertEquals(null, binding.currentConnection());
    } finally {
      em.close();
    }
    assertEquals(null, JpaTransactions.of(() -> null).currentConnection(), "no EntityManager on the thread");

    // A transition outside any JPA transaction runs in idem's own.
    long id = jpa.inTransaction(em2 -> bookings.book(key(), "ada"));
    assertEquals(TransitionResult.APPLIED, flow.confirm(id));
    assertEquals("CONFIRMED|ada", statusAndGuest(id));
  }

  @Test
  void aJpaCommandCalledOutsideTheJpaTransactionFailsClearlyAndRecordsNothing() {
    String key = key();
    IllegalStateException failure = assertThrows(IllegalStateException.class, () -> bookings.book(key, "ada"));
    assertTrue(failure.getMessage().contains("JpaUnitOfWork.inTransaction"), failure.getMessage());
    assertEquals(0, records("jpa.bookings.book", key));
    assertEquals(0, bookingRows(key));
  }

  /** 32 threads × the same 100 keys in shuffled orders: one entity row and one record per key. */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void concurrentDuplicatesLeaveOneEntityAndOneRecordPerKey() throws Exception {
    int threads = 32;
    List<String> keys = new ArrayList<>();
    String run = UUID.randomUUID().toString().substring(0, 8);
    for (int i = 0; i < 100; i++) {
      keys.add("c-" + run + "-" + i);
    }
    AtomicInteger transientRetries = new AtomicInteger();
    // Without the cache of completed records, every duplicate goes to the database (claim, then read).
    IdemRuntime uncached = IdemRuntime.builder().dataSource(database.dataSource())
        .joinTransactions(jpa.transactions()).resultCache(false).build();
    Bookings bookings = new Bookings_Idempotent(delegate, uncached);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        List<String> order = new ArrayList<>(keys);
        Collections.shuffle(order, new Random(t));
        results.add(pool.submit(() -> {
          List<Long> ids = new ArrayList<>();
          for (String key : order) {
            ids.add(withTransientRetries(transientRetries, () -> jpa.inTransaction(em -> bookings.book(key, "g"))));
          }
          return ids;
        }));
      }
      List<List<Long>> idsByThread = new ArrayList<>();
      for (Future<List<Long>> result : results) {
        idsByThread.add(result.get(100, TimeUnit.SECONDS));
      }
      for (String key : keys) {
        assertEquals(1, bookingRows(key), key);
        assertEquals(1, records("jpa.bookings.book", key), key);
      }
      // Every thread got the id of the one entity of each key.
      for (int t = 1; t < threads; t++) {
        for (int k = 0; k < keys.size(); k++) {
          String key = keys.get(k);
          assertEquals(idOf(idsByThread.get(0), keys, key, 0), idOf(idsByThread.get(t), keys, key, t), key);
        }
      }
      System.out.println(database().displayName() + ": 32 threads x 100 keys, transient retries: "
          + transientRetries.get());
    } finally {
      pool.shutdownNow();
    }
  }

  private static long idOf(List<Long> ids, List<String> keys, String key, int thread) {
    List<String> order = new ArrayList<>(keys);
    Collections.shuffle(order, new Random(thread));
    return ids.get(order.indexOf(key));
  }

  /** What an application does with a deadlock or lock timeout: runs the whole unit of work again. */
  private static <T> T withTransientRetries(AtomicInteger retries, java.util.function.Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (RuntimeException e) {
        if (attempt >= 10 || !isTransient(e)) {
          throw e;
        }
        retries.incrementAndGet();
      }
    }
  }

  private static boolean isTransient(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof jakarta.persistence.PessimisticLockException
          || t instanceof jakarta.persistence.LockTimeoutException) {
        return true;
      }
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if (state != null && (state.startsWith("40") || state.equals("HYT00"))
            || sql.getErrorCode() == 1213 || sql.getErrorCode() == 1205) {
          return true;
        }
      }
    }
    return false;
  }

  private long bookingRows(String requestId) {
    return count("SELECT COUNT(*) FROM bookings WHERE request_id = ?", requestId);
  }

  private long records(String scope, String key) {
    return count("SELECT COUNT(*) FROM idem_record WHERE scope = '" + scope + "' AND idem_key = ?", key);
  }

  private long count(String sql, String parameter) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, parameter);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private String statusAndGuest(long id) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement("SELECT status, guest FROM bookings WHERE id = ?")) {
      statement.setLong(1, id);
      try (ResultSet rows = statement.executeQuery()) {
        assertTrue(rows.next());
        return rows.getString(1) + "|" + rows.getString(2);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
