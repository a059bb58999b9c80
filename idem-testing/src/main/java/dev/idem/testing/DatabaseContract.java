package dev.idem.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.TestAbortedException;

/**
 * The base of a contract test that runs once per database: a concrete subclass names the database, this class opens
 * a fresh isolated one for the test class and drops it afterwards. When the server is unreachable (and the build
 * allows skipping), every test of the class is reported as skipped rather than the class failing to start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseContract {

  /** The isolated database of this test class; null when it is unavailable. */
  protected IsolatedDatabase database;
  /** Counts the connections and statements the code under test takes from {@link #database}. */
  protected CountingDataSource counting;
  /** The clock to hand to the runtime, so that tests can move time. */
  protected final MutableClock clock = new MutableClock();
  /** A thread-safe list for a {@link RecordingListener}. */
  protected final List<String> events = new CopyOnWriteArrayList<>();

  private TestAbortedException unavailable;

  /** {@return the database this concrete class runs on} */
  protected abstract TestDatabase database();

  /** Builds what the tests need (runtime, tables) once {@link #database} and {@link #counting} are open. */
  protected abstract void prepare();

  @BeforeAll
  final void openIsolatedDatabase() {
    try {
      database = IsolatedDatabase.open(database());
    } catch (TestAbortedException e) {
      unavailable = e;
      return;
    }
    counting = new CountingDataSource(database.dataSource());
    prepare();
  }

  @BeforeEach
  final void skipWhenUnavailable() {
    if (unavailable != null) {
      throw unavailable;
    }
  }

  @AfterAll
  final void closeIsolatedDatabase() {
    if (database != null) {
      database.close();
    }
  }
}
