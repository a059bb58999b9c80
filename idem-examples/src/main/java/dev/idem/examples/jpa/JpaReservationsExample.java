package dev.idem.examples.jpa;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.idem.jpa.JpaUnitOfWork;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransitionResult;
import jakarta.persistence.EntityManagerFactory;
import java.io.PrintStream;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;

/**
 * A JPA service wired by Guice, on embedded H2 with Hibernate ORM 7: a first call persists a reservation and idem's
 * record in one JPA transaction, a retry replays it, and a state transition inside a JPA transaction leaves the
 * managed entity up to date: {@code mvn -q -Prun-jpa -pl idem-examples -am verify -DskipTests}.
 */
public final class JpaReservationsExample {

  /** Held, so that the level set on it stays (JUL keeps loggers weakly). */
  private static final Logger HIBERNATE_LOG = Logger.getLogger("org.hibernate");

  /** What the run observed; the example's test asserts on it. */
  public record Outcome(Reservations.Reserved first, Reservations.Reserved retry, int bodyRuns, long rows,
                        TransitionResult confirmed, ReservationStatus managedStatus, long managedVersion,
                        TransitionResult confirmedAgain) {}

  private JpaReservationsExample() {}

  public static void main(String[] args) {
    HIBERNATE_LOG.setLevel(Level.WARNING); // Hibernate's start-up banner would hide what the example prints
    JdbcConnectionPool pool = JdbcConnectionPool.create("jdbc:h2:mem:jpa-reservations;DB_CLOSE_DELAY=-1", "sa", "");
    try {
      Outcome outcome = run(pool, System.out);
      if (outcome.bodyRuns() != 1 || outcome.rows() != 1 || outcome.managedStatus() != ReservationStatus.CONFIRMED) {
        throw new IllegalStateException("the JPA service was not idempotent: " + outcome);
      }
    } finally {
      pool.dispose();
    }
  }

  public static Outcome run(DataSource dataSource, PrintStream out) {
    EntityManagerFactory entityManagerFactory = new HibernatePersistenceConfiguration("reservations")
        .managedClass(Reservation.class)
        .property("jakarta.persistence.nonJtaDataSource", dataSource)
        .schemaToolingAction(Action.CREATE)
        .createEntityManagerFactory();
    try {
      // One EntityManager and transaction per unit of work; idem joins it through the binding.
      JpaUnitOfWork jpa = new JpaUnitOfWork(entityManagerFactory);
      IdemRuntime runtime = IdemRuntime.builder().dataSource(dataSource).joinTransactions(jpa.transactions()).build();
      runtime.createSchema();
      Injector injector = Guice.createInjector(new ReservationsModule(runtime, jpa));
      Reservations reservations = injector.getInstance(Reservations.class);
      JpaReservations yours = injector.getInstance(JpaReservations.class);

      out.println("== A guest books; the gateway times out and the client retries with the same request id ==");
      Reservations.Reserve request = new Reservations.Reserve("ada", 3);
      Reservations.Reserved first = jpa.inTransaction(em -> reservations.reserve("req-42", request));
      out.printf("first call: reservation %d for %s, %d nights%n", first.reservationId(), first.guest(),
          first.nights());
      Reservations.Reserved retry = jpa.inTransaction(em -> reservations.reserve("req-42", request));
      long rows = jpa.inTransaction(em -> em.createQuery("select count(r) from Reservation r", Long.class)
          .getSingleResult());
      out.printf("retry     : reservation %d (replayed: the body ran %d time, %d reservation row)%n",
          retry.reservationId(), yours.calls(), rows);

      out.println("== The hotel confirms it inside a JPA transaction that holds the entity ==");
      Object[] seen = new Object[3];
      jpa.runInTransaction(em -> {
        Reservation managed = em.find(Reservation.class, first.reservationId());
        seen[0] = reservations.confirm(first.reservationId()); // a guarded UPDATE on the same connection
        seen[1] = managed.getStatus(); // refreshed by idem-jpa: not the HELD it was loaded with
        seen[2] = managed.getVersion();
      });
      TransitionResult confirmed = (TransitionResult) seen[0];
      out.printf("confirm   : %s; the managed entity is %s, version %d%n", confirmed, seen[1], seen[2]);
      TransitionResult again = jpa.inTransaction(em -> reservations.confirm(first.reservationId()));
      out.printf("confirm again: %s (no effect)%n", again);
      return new Outcome(first, retry, yours.calls(), rows, confirmed, (ReservationStatus) seen[1], (long) seen[2],
          again);
    } finally {
      entityManagerFactory.close();
    }
  }
}
