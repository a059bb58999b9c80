package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.Mode;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.IdempotencyStoreException;
import dev.idem.runtime.RecordLayout;
import dev.idem.runtime.RecordPartition;
import dev.idem.testing.CountingDataSource;
import dev.idem.testing.DatabaseContract;
import dev.idem.testing.MutableClock;
import dev.idem.testing.RecordingListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RecordLayout#DAY_PARTITIONS}: uniqueness of a key across day partitions (held by the per-key lock and the
 * window probe, not by an index), duplicates racing across midnight, reuse after the window, a missing partition,
 * and retention by dropping or archiving whole days while traffic runs, with two maintainers at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class DayPartitionsContractTest extends DatabaseContract {

  /** A day's last tenth of a second, database time. */
  private static final Instant BEFORE_MIDNIGHT = Instant.parse("2030-01-01T23:59:59.900Z");
  private static final Duration WINDOW = Duration.ofDays(1);

  private static final CommandSpec<String> PAY = CommandSpec.builder("Payments.pay", ResultType.of(String.class))
      .retention(WINDOW).keyParts("id").payload("amount").build();
  private static final CommandSpec<Void> ON_BATCH = CommandSpec.builder("Consumers.onBatch", ResultType.VOID)
      .retention(WINDOW).keyParts("batch", "group").payload("batch").build();
  private static final CommandSpec<String> CHARGE = CommandSpec.builder("Gateway.charge", ResultType.of(String.class))
      .mode(Mode.CLAIM).lease(Duration.ofSeconds(30)).keyParts("id").build();

  private final String archiveSchema = "idem_archive_" + UUID.randomUUID().toString().substring(0, 8);
  private IdemRuntime runtime;

  @Override
  protected void prepare() {
    clock.set(BEFORE_MIDNIGHT);
    runtime = builder(clock).build();
    runtime.createSchema();
    database.execute("CREATE TABLE executions (k VARCHAR(255) NOT NULL, run_at BIGINT NOT NULL)");
  }

  @AfterAll
  void dropArchive() {
    database.execute(dropArchiveSql(archiveSchema));
  }

  /** The statement dropping the archive schema (database on MariaDB) with its tables. */
  protected abstract String dropArchiveSql(String schema);

  /** The statement dropping one day partition of {@code table} with its records. */
  protected abstract String dropPartitionSql(String table, String partition);

  /** A count query: 0 when {@code table} has no catch-all partition (DEFAULT, MAXVALUE). */
  protected abstract String catchAllPartitionsSql(String table);

  /** A count query: 1 when the partition of {@code table} named {@code partition} exists. */
  protected abstract String partitionExistsSql(String table, String partition);

  /** Asserts that the failure of a claim whose day has no partition is the database's refusal of that row. */
  protected abstract void assertNoPartitionRefusal(SQLException cause);

  /** The rows of one partition in a FROM clause. */
  protected abstract String partitionRows(String table, String partition);

  /**
   * A count query: the rows of one partition as the database's statistics have them (what a drop reports), read
   * from the statistics only. PostgreSQL's lag behind the writes by up to 10 s (a session reports its own when idle).
   */
  protected abstract String rowStatisticsSql(String table, String partition);

  /**
   * Waits until the statistics of each day partition count its rows, as they do long before a day is old enough to
   * go: the record counts a drop reports are those statistics, never a count of the day.
   */
  private void awaitRowStatistics(String table, String... partitions) throws InterruptedException {
    for (String partition : partitions) {
      long rows = count("SELECT count(*) FROM " + partitionRows(table, partition));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (count(rowStatisticsSql(table, partition)) != rows) {
        assertTrue(System.nanoTime() < deadline, "the statistics of " + partition + " never counted its " + rows
            + " rows: " + count(rowStatisticsSql(table, partition)));
        Thread.sleep(100);
      }
    }
  }

  /** The data source the day-partitioned runtimes use (a subclass may set their isolation level). */
  @Test
  void aLookupFirstReadFindsTheLatestRecordOfAnyDayAndOfTheTableSwitchedFrom() {
    CommandSpec<String> payLookingUp = CommandSpec.builder("Payments.payLookingUp", ResultType.of(String.class))
        .retention(WINDOW).keyParts("id").payload("amount").lookupFirst(true).build();
    database.execute("DROP TABLE IF EXISTS lookup_legacy_record", "DROP TABLE IF EXISTS lookup_switched_record");
    AtomicInteger runs = new AtomicInteger();
    java.util.function.BiFunction<IdemRuntime, String, String> pay = (on, id) -> IdemEngine.of(on)
        .execute(payLookingUp, new Object[] {id}, new Object[] {7}, () -> "paid (run " + runs.incrementAndGet() + ")");
    try (IdemRuntime oneTable = IdemRuntime.builder().dataSource(database.dataSource())
        .tableName("lookup_legacy_record").clock(clock).databaseTime(false).resultCache(false).build()) {
      oneTable.createSchema();
      assertEquals("paid (run 1)", pay.apply(oneTable, "old"));
    }
    dev.idem.testing.CountingDataSource counted = new dev.idem.testing.CountingDataSource(runtimeDataSource());
    try (IdemRuntime switched = builder(clock).dataSource(counted).tableName("lookup_switched_record")
        .switchingFrom("lookup_legacy_record").resultCache(false).build()) {
      switched.createSchema();
      counted.reset();
      assertEquals("paid (run 1)", pay.apply(switched, "old"), "replayed from the table switched from");
      assertEquals(1, counted.statementsExecuted(), "by the read alone: " + counted.executedSql());
      assertEquals("paid (run 2)", pay.apply(switched, "new"));
      clock.advance(Duration.ofSeconds(1)); // past midnight: the record lies in yesterday's partition
      counted.reset();
      assertEquals("paid (run 2)", pay.apply(switched, "new"), "replayed from yesterday's partition");
      assertEquals(1, counted.statementsExecuted(), "by the read alone: " + counted.executedSql());
      assertThrows(IdempotencyKeyReusedException.class, () -> IdemEngine.of(switched).execute(payLookingUp,
          new Object[] {"new"}, new Object[] {8}, () -> "paid again (run " + runs.incrementAndGet() + ")"));
      assertEquals(2, runs.get());
      assertTrue(events.stream().filter(event -> event.startsWith("replayed")).count() >= 2, events.toString());
    } finally {
      database.execute("DROP TABLE lookup_legacy_record", "DROP TABLE lookup_switched_record");
    }
  }

  protected javax.sql.DataSource runtimeDataSource() {
    return database.dataSource();
  }

  /**
   * A count query: the sessions waiting for a lock on {@code table} (the switch's wait for the old layout's
   * uncommitted writers).
   */
  protected abstract String waitingForLocksOnSql(String table);

  private IdemRuntime.Builder builder(MutableClock time) {
    return IdemRuntime.builder().dataSource(runtimeDataSource()).clock(time).databaseTime(false)
        .layout(RecordLayout.DAY_PARTITIONS)
        .listener(RecordingListener.withScope(IdempotencyListener.class, events));
  }

  @BeforeEach
  void clear() {
    database.execute("DELETE FROM executions");
    for (RecordPartition partition : runtime.partitions()) { // each test starts with only the premade week
      database.execute(dropPartitionSql("idem_record", partition.name()));
    }
    runtime.clearResultCache();
    clock.set(BEFORE_MIDNIGHT);
    runtime.premakePartitions();
    events.clear();
  }

  private String pay(IdemRuntime on, String id, long amount, AtomicInteger runs) {
    return IdemEngine.of(on).execute(PAY, new Object[] {id}, new Object[] {amount}, () -> {
      recordExecution(on, id);
      return "paid " + amount + " (run " + runs.incrementAndGet() + ")";
    });
  }

  private int consume(IdemRuntime on, List<String> ids) {
    return IdemEngine.of(on).executeBatch(ON_BATCH, ids, id -> new Object[] {id, "billing"}, id -> new Object[] {id},
        firstSeen -> {
          for (String id : firstSeen) {
            recordExecution(on, id);
          }
          return firstSeen.size();
        });
  }

  private static void recordExecution(IdemRuntime on, String key) throws SQLException {
    try (PreparedStatement insert = on.currentConnection()
        .prepareStatement("INSERT INTO executions (k, run_at) VALUES (?, 0)")) {
      insert.setString(1, key);
      insert.executeUpdate();
    }
  }

  private long count(String sql) {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(sql);
        ResultSet rs = query.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private Set<LocalDate> days() {
    Set<LocalDate> days = new TreeSet<>();
    for (RecordPartition partition : runtime.partitions()) {
      days.add(partition.day());
    }
    return days;
  }

  @Test
  void partitionsAreMadeFromYesterdayToTheComingWeekWithoutADefaultPartition() {
    List<RecordPartition> partitions = runtime.partitions();
    assertEquals(LocalDate.parse("2029-12-31"), partitions.get(0).day(), "from yesterday");
    assertEquals(LocalDate.parse("2030-01-08"), partitions.get(partitions.size() - 1).day());
    assertEquals(9, partitions.size());
    assertEquals("idem_record_p20300101", partitions.get(1).name());
    assertEquals(Instant.parse("2030-01-01T00:00:00Z"), partitions.get(1).from());
    assertEquals(Instant.parse("2030-01-02T00:00:00Z"), partitions.get(1).until());
    assertEquals(List.of(), runtime.premakePartitions(), "all there: nothing to make");
    assertEquals(0, count(catchAllPartitionsSql("idem_record")), "never a DEFAULT partition");
  }

  @Test
  void aRetryTheNextDayInsideTheWindowReplaysFromYesterdaysPartition() {
    AtomicInteger runs = new AtomicInteger();
    assertEquals("paid 10 (run 1)", pay(runtime, "p-1", 10, runs));
    clock.advance(Duration.ofHours(5)); // the next day: another partition
    runtime.clearResultCache();
    assertEquals("paid 10 (run 1)", pay(runtime, "p-1", 10, runs), "found in yesterday's partition");
    assertThrows(IdempotencyKeyReusedException.class, () -> pay(runtime, "p-1", 20, runs));
    assertEquals(1, count("SELECT count(*) FROM idem_record"));
    assertEquals(1, runs.get());
  }

  @Test
  void aKeyReusedAfterItsWindowRunsAnewAndTheOldRecordStaysForAudit() {
    AtomicInteger runs = new AtomicInteger();
    pay(runtime, "p-2", 10, runs);
    clock.advance(WINDOW);
    runtime.clearResultCache();
    assertEquals("paid 20 (run 2)", pay(runtime, "p-2", 20, runs));
    assertEquals("paid 20 (run 2)", pay(runtime, "p-2", 20, runs));
    assertEquals(2, count("SELECT count(*) FROM idem_record WHERE idem_key = 'p-2'"), "one record per day");
  }

  @Test
  void anExpiredRecordOfTodayIsTakenOverInPlace() {
    CommandSpec<String> brief = CommandSpec.builder("Payments.brief", ResultType.of(String.class))
        .retention(Duration.ofMillis(50)).keyParts("id").payload("amount").build();
    AtomicInteger runs = new AtomicInteger();
    clock.set(Instant.parse("2030-01-02T10:00:00Z"));
    IdemEngine.of(runtime).execute(brief, new Object[] {"b-1"}, new Object[] {1L}, () -> "r" + runs.incrementAndGet());
    clock.advance(Duration.ofMillis(50));
    runtime.clearResultCache();
    assertEquals("r2", IdemEngine.of(runtime).execute(brief, new Object[] {"b-1"}, new Object[] {2L},
        () -> "r" + runs.incrementAndGet()));
    assertEquals(1, count("SELECT count(*) FROM idem_record WHERE idem_key = 'b-1'"));
  }

  /**
   * Callers on both sides of midnight race for one key: half of them claim at 23:59:59.9 (yesterday's partition),
   * half at 00:00:00.05 (today's). Only the per-key lock and the probe after it keep the second day from getting a
   * record of its own.
   */
  @Test
  void duplicatesRacingAcrossMidnightRunOnce() throws Exception {
    MutableClock afterMidnight = new MutableClock(BEFORE_MIDNIGHT.plusMillis(150));
    try (IdemRuntime tomorrow = builder(afterMidnight).build()) {
      for (int round = 0; round < 10; round++) {
        String key = "race-" + round;
        AtomicInteger runs = new AtomicInteger();
        List<String> results = race(8, caller -> pay(caller % 2 == 0 ? runtime : tomorrow, key, 10, runs));
        assertEquals(1, runs.get(), "round " + round + ": " + results);
        assertEquals(1, count("SELECT count(*) FROM executions WHERE k = '" + key + "'"));
        assertEquals(1, count("SELECT count(*) FROM idem_record WHERE idem_key = '" + key + "'"));
        assertTrue(results.stream().allMatch(results.get(0)::equals), results.toString());
      }
    }
  }

  @Test
  void redeliveredBatchesRacingAcrossMidnightAreConsumedOnce() throws Exception {
    MutableClock afterMidnight = new MutableClock(BEFORE_MIDNIGHT.plusMillis(150));
    try (IdemRuntime tomorrow = builder(afterMidnight).build()) {
      List<String> ids = List.of("m-1", "m-2", "m-3", "m-4", "m-5");
      List<Integer> consumed = race(8, caller -> consume(caller % 2 == 0 ? runtime : tomorrow,
          caller % 3 == 0 ? ids : ids.subList(1, 5)));
      assertEquals(5, consumed.stream().mapToInt(Integer::intValue).sum(), consumed.toString());
      assertEquals(5, count("SELECT count(*) FROM executions"));
      assertEquals(5, count("SELECT count(*) FROM idem_record"));
    }
    clock.advance(Duration.ofHours(12));
    assertEquals(1, consume(runtime, List.of("m-1", "m-6")), "the next day inside the window: m-1 is a duplicate");
  }

  private static <T> List<T> race(int callers, CallerTask<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        int caller = i;
        futures.add(pool.submit((Callable<T>) () -> {
          start.await();
          return task.run(caller);
        }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(30, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  private interface CallerTask<T> {
    T run(int caller) throws Exception;
  }

  @Test
  void aClaimWhoseDayHasNoPartitionFailsNamingTheFixAndLeavesNothing() {
    clock.set(Instant.parse("2030-03-01T12:00:00Z")); // weeks past the premade days
    AtomicInteger runs = new AtomicInteger();
    IdempotencyStoreException failure = assertThrows(IdempotencyStoreException.class,
        () -> pay(runtime, "p-3", 10, runs));
    SQLException cause = (SQLException) failure.getCause();
    assertNoPartitionRefusal(cause);
    assertTrue(cause.getMessage().contains("premakePartitions()"), cause.getMessage());
    assertEquals(0, runs.get());
    assertEquals(0, count("SELECT count(*) FROM idem_record"));
    assertThrows(IdempotencyStoreException.class, () -> consume(runtime, List.of("m-9")));
    assertEquals(0, count("SELECT count(*) FROM executions"));

    assertTrue(runtime.premakePartitions().contains("idem_record_p20300301"));
    assertEquals("paid 10 (run 1)", pay(runtime, "p-3", 10, runs));
  }

  private String charge(IdemRuntime on, String id, AtomicInteger runs) {
    return IdemEngine.of(on).execute(CHARGE, new Object[] {id}, new Object[0], () -> {
      int run = runs.incrementAndGet();
      Thread.sleep(30); // the body runs outside the claim's transaction: competitors meet the IN_PROGRESS record
      return "charged (run " + run + ")";
    });
  }

  @Test
  void claimCommandsRacingAcrossMidnightRunOnceAndReplay() throws Exception {
    MutableClock afterMidnight = new MutableClock(BEFORE_MIDNIGHT.plusMillis(150));
    try (IdemRuntime tomorrow = builder(afterMidnight).build()) {
      for (int round = 0; round < 5; round++) {
        String key = "c-" + round;
        AtomicInteger runs = new AtomicInteger();
        List<String> outcomes = race(8, caller -> {
          try {
            return charge(caller % 2 == 0 ? runtime : tomorrow, key, runs);
          } catch (dev.idem.runtime.IdempotencyInProgressException inFlight) {
            return "in flight";
          }
        });
        assertEquals(1, runs.get(), "round " + round + ": " + outcomes);
        assertEquals(1, count("SELECT count(*) FROM idem_record WHERE idem_key = '" + key + "'"));
        tomorrow.clearResultCache();
        assertEquals("charged (run 1)", charge(tomorrow, key, runs), "replayed the next day");
      }
    }
  }

  @Test
  void aClaimKeyReusedAfterItsWindowRunsAnewInTodaysPartition() {
    AtomicInteger runs = new AtomicInteger();
    assertEquals("charged (run 1)", charge(runtime, "c-9", runs));
    clock.advance(Duration.ofDays(1).plusSeconds(31)); // past the lease and the one-day retention
    runtime.clearResultCache();
    assertEquals("charged (run 2)", charge(runtime, "c-9", runs));
    assertEquals("charged (run 2)", charge(runtime, "c-9", runs));
    assertEquals(2, count("SELECT count(*) FROM idem_record WHERE idem_key = 'c-9'"), "one record per day");
  }

  @Test
  void purgeDropsOnlyDaysPastTheirHorizonWhileTrafficRuns() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    clock.set(Instant.parse("2030-01-01T12:00:00Z"));
    for (int day = 0; day < 4; day++) { // 2030-01-01 .. 01-04: two records a day
      pay(runtime, "d" + day + "-a", 1, runs);
      pay(runtime, "d" + day + "-b", 1, runs);
      clock.advance(Duration.ofDays(1));
    }
    clock.advance(Duration.ofHours(-1));
    // Now 2030-01-05T11:00: days 01..03 are past their window (expired at 02..04 12:00); day 04 is not.
    awaitRowStatistics("idem_record", "idem_record_p20300101", "idem_record_p20300102", "idem_record_p20300103");
    events.clear();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService traffic = Executors.newSingleThreadExecutor();
    Future<Integer> calls = traffic.submit(() -> {
      int n = 0;
      while (!stop.get()) {
        pay(runtime, "live-" + n++, 1, runs);
      }
      return n;
    });
    try {
      assertEquals(6, runtime.purgeExpired(100));
    } finally {
      stop.set(true);
      traffic.shutdown();
    }
    int live = calls.get(30, TimeUnit.SECONDS);
    assertEquals(2 + live, count("SELECT count(*) FROM idem_record"));
    assertTrue(events.contains("partitionDropped idem_record idem_record_p20300101 2"), events.toString());
    assertEquals(LocalDate.parse("2030-01-04"), days().iterator().next());
    assertTrue(days().contains(LocalDate.parse("2030-01-12")), "the coming week premade: " + days());
    assertEquals(0, runtime.purgeExpired(100));
    // A retry of day 04's key inside its window still replays.
    assertEquals("paid 1 (run 7)", pay(runtime, "d3-a", 1, runs));
  }

  @Test
  void aDayIsKeptUntilItsArchiveHorizonAndThenMovedToTheArchiveSchema() throws Exception {
    try (IdemRuntime archiving = builder(clock).keepAfterDedupWindow(Duration.ofDays(2))
        .archivePartitionsTo(archiveSchema).build()) {
      AtomicInteger runs = new AtomicInteger();
      clock.set(Instant.parse("2030-01-02T06:00:00Z"));
      pay(archiving, "a-1", 1, runs); // window ends 01-03 06:00, horizon 01-05 06:00
      clock.set(Instant.parse("2030-01-05T06:00:00Z").minusMillis(1));
      awaitRowStatistics("idem_record", "idem_record_p20300102");
      assertEquals(0, archiving.purgeExpired(100), "inside the horizon");
      assertTrue(days().contains(LocalDate.parse("2030-01-02")));
      clock.advance(Duration.ofMillis(1));
      assertEquals(1, archiving.purgeExpired(100));
      assertTrue(!days().contains(LocalDate.parse("2030-01-02")), days().toString());
      assertEquals(1, count("SELECT count(*) FROM " + archiveSchema + ".idem_record_p20300102"));
      assertTrue(events.contains("partitionArchived idem_record " + archiveSchema + ".idem_record_p20300102 1"),
          events.toString());
    }
  }

  @Test
  void twoMaintainersAtOnceDropEachDayOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    clock.set(Instant.parse("2030-01-01T12:00:00Z"));
    for (int day = 0; day < 3; day++) {
      for (int i = 0; i < 5; i++) {
        pay(runtime, "t" + day + "-" + i, 1, runs);
      }
      clock.advance(Duration.ofDays(1));
    }
    clock.advance(Duration.ofDays(2)); // every day past its window
    awaitRowStatistics("idem_record", "idem_record_p20300101", "idem_record_p20300102", "idem_record_p20300103");
    try (IdemRuntime other = builder(clock).build()) {
      for (int attempt = 0; attempt < 3; attempt++) {
        List<Long> dropped = race(2, caller -> (caller == 0 ? runtime : other).purgeExpired(100));
        assertEquals(attempt == 0 ? 15 : 0, dropped.get(0) + dropped.get(1), dropped.toString());
      }
    }
    assertEquals(0, count("SELECT count(*) FROM idem_record"));
    List<String> drops = events.stream().filter(e -> e.startsWith("partitionDropped")).toList();
    assertEquals(drops.size(), drops.stream().map(e -> e.split(" ")[2]).distinct().count(), "each day once: " + drops);
    assertEquals(3, drops.stream().filter(e -> e.endsWith(" 5")).count(), drops.toString());
    assertNotNull(runtime.partitions());
  }

  /**
   * The records a drop reports come from the database's statistics: no statement of the purge reads the day's rows
   * (a {@code count(*)} of a 22 GB day would be minutes of cold I/O); the only read of the day is its latest expiry,
   * one entry of its expiry index.
   */
  @Test
  void aDroppedDayIsReportedFromStatisticsWithoutReadingItsRows() throws Exception {
    CountingDataSource statements = new CountingDataSource(runtimeDataSource());
    try (IdemRuntime recorded = IdemRuntime.builder().dataSource(statements).clock(clock).databaseTime(false)
        .layout(RecordLayout.DAY_PARTITIONS).listener(RecordingListener.withScope(IdempotencyListener.class, events))
        .build()) {
      clock.set(Instant.parse("2030-01-01T12:00:00Z"));
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        ids.add("s-" + i);
      }
      assertEquals(400, consume(recorded, ids));
      clock.advance(Duration.ofDays(3)); // past the window, and no longer yesterday
      awaitRowStatistics("idem_record", "idem_record_p20300101");
      events.clear();
      statements.reset();
      long dropped = recorded.purgeExpired(100);
      assertTrue(dropped >= 360 && dropped <= 440, "a plausible estimate of the day's 400 records: " + dropped);
      assertTrue(events.contains("partitionDropped idem_record idem_record_p20300101 " + dropped), events.toString());
      assertTrue(!days().contains(LocalDate.parse("2030-01-01")), "dropped: " + days());
      List<String> readingTheDay = new ArrayList<>();
      for (String sql : statements.executedSql()) {
        String text = sql == null ? "" : sql.strip();
        boolean ddl = text.matches("(?is)(SET STATEMENT .*? FOR )?(ALTER|DROP|CREATE) .*");
        boolean expiryProbe = text.matches("(?is)SELECT max\\(expires_at\\) FROM [^ ]+( PARTITION \\([^)]+\\))?");
        if (text.contains("idem_record_p20300101") && !ddl && !expiryProbe) {
          readingTheDay.add(text);
        }
      }
      assertEquals(List.of(), readingTheDay, "statements that read the dropped day's rows");
    }
  }

  // ---- switching a live system from one table

  private long waitingLocksOn(String table) {
    return count(waitingForLocksOnSql(table));
  }

  @Test
  void theSwitchFromOneTableUnderLoadLetsNoDuplicateThrough() throws Exception {
    database.execute("DROP TABLE IF EXISTS legacy_record", "DROP TABLE IF EXISTS switched_record");
    clock.set(Instant.parse("2030-01-01T20:00:00Z"));
    IdemRuntime oneTable = IdemRuntime.builder().dataSource(database.dataSource()).tableName("legacy_record")
        .clock(clock).databaseTime(false).build();
    oneTable.createSchema();
    java.util.concurrent.atomic.AtomicReference<IdemRuntime> current =
        new java.util.concurrent.atomic.AtomicReference<>(oneTable);
    java.util.concurrent.locks.ReadWriteLock deploy = new java.util.concurrent.locks.ReentrantReadWriteLock();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger calls = new AtomicInteger();
    ExecutorService traffic = Executors.newFixedThreadPool(4);
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int seed = t;
      workers.add(traffic.submit(() -> {
        java.util.Random random = new java.util.Random(seed);
        while (!stop.get()) {
          String key = "s-" + random.nextInt(150);
          deploy.readLock().lock(); // a call runs on one runtime, start to end
          try {
            pay(current.get(), key, 7, new AtomicInteger());
            calls.incrementAndGet();
          } finally {
            deploy.readLock().unlock();
          }
        }
        return null;
      }));
    }
    try {
      while (calls.get() < 300) {
        Thread.sleep(10);
      }
      IdemRuntime switched;
      deploy.writeLock().lock(); // the deploy: the one-table runtimes drained and stopped
      try {
        oneTable.close();
        switched = builder(clock).tableName("switched_record").switchingFrom("legacy_record").build();
        switched.createSchema();
        current.set(switched);
      } finally {
        deploy.writeLock().unlock();
      }
      int atSwitch = calls.get();
      while (calls.get() < atSwitch + 600) {
        Thread.sleep(10);
      }
      clock.advance(Duration.ofHours(6)); // past midnight: the new table's next day
      int afterMidnight = calls.get();
      while (calls.get() < afterMidnight + 300) {
        Thread.sleep(10);
      }
    } finally {
      stop.set(true);
      traffic.shutdown();
    }
    for (Future<?> worker : workers) {
      worker.get(30, TimeUnit.SECONDS);
    }
    assertEquals(0, count("SELECT count(*) FROM (SELECT k FROM executions GROUP BY k HAVING count(*) > 1) twice"),
        "every key ran once, before or after the switch");
    assertTrue(count("SELECT count(*) FROM legacy_record") > 0);
    assertEquals(0, count("SELECT count(*) FROM switched_record r JOIN legacy_record o"
        + " ON o.scope = r.scope AND o.idem_key = r.idem_key"), "no key recorded on both sides of the switch");

    IdemRuntime switched = current.get();
    Instant liveUntil = switched.switchedTableLiveUntil().orElseThrow();
    clock.set(liveUntil);
    AtomicInteger runs = new AtomicInteger();
    String oldKey = "s-0";
    assertEquals(1, count("SELECT count(*) FROM legacy_record WHERE idem_key = '" + oldKey + "'"));
    runtime.premakePartitions();
    switched.premakePartitions();
    assertEquals("paid 7 (run 1)", pay(switched, oldKey, 7, runs), "past the old table's window: runs anew");
    switched.close();
    database.execute("DROP TABLE legacy_record", "DROP TABLE switched_record");
  }

  /**
   * A claim of the old layout still uncommitted when the switch happens: {@code createSchema()} of the switched
   * runtime waits for it, so that the new runtime's first call of that key replays it instead of running again.
   */
  @Test
  void theSwitchWaitsForTheOldLayoutsUncommittedClaims() throws Exception {
    database.execute("DROP TABLE IF EXISTS legacy_inflight", "DROP TABLE IF EXISTS switched_inflight");
    clock.set(Instant.parse("2030-01-01T20:00:00Z"));
    IdemRuntime oneTable = IdemRuntime.builder().dataSource(database.dataSource()).tableName("legacy_inflight")
        .clock(clock).databaseTime(false).build();
    oneTable.createSchema();
    CountDownLatch bodyRuns = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<String> inFlight = threads.submit(() -> IdemEngine.of(oneTable).execute(PAY, new Object[] {"f-1"},
          new Object[] {5L}, () -> {
            bodyRuns.countDown();
            release.await();
            return "paid 5 (run " + runs.incrementAndGet() + ")";
          }));
      bodyRuns.await();
      IdemRuntime switched = builder(clock).tableName("switched_inflight").switchingFrom("legacy_inflight").build();
      Future<?> createSchema = threads.submit(() -> {
        switched.createSchema();
        return null;
      });
      while (!createSchema.isDone() && waitingLocksOn("legacy_inflight") == 0) {
        Thread.sleep(10);
      }
      // If the switch did not wait, this call would not see the uncommitted claim and run the key a second time.
      if (createSchema.isDone()) {
        pay(switched, "f-1", 5, runs);
      }
      release.countDown();
      assertEquals("paid 5 (run 1)", inFlight.get(30, TimeUnit.SECONDS));
      createSchema.get(30, TimeUnit.SECONDS);
      assertEquals("paid 5 (run 1)", pay(switched, "f-1", 5, runs), "replayed from the old table");
      assertThrows(IdempotencyKeyReusedException.class, () -> pay(switched, "f-1", 6, runs));
      assertEquals(1, runs.get());
      switched.close();
    } finally {
      release.countDown();
      threads.shutdownNow();
      oneTable.close();
    }
    database.execute("DROP TABLE legacy_inflight", "DROP TABLE switched_inflight");
  }

  /**
   * Every path of a switched runtime respects the old table's live records: a command's claim, a claim command's, a
   * key that carries its time, batches with and without key times. Each replays (or refuses another payload) from
   * the old table instead of running again, until the old table's window has passed.
   */
  @Test
  void afterTheSwitchEveryPathReplaysFromTheOldTableUntilItsWindowHasPassed() {
    database.execute("DROP TABLE IF EXISTS legacy_paths", "DROP TABLE IF EXISTS switched_paths");
    clock.set(Instant.parse("2030-01-01T20:00:00Z"));
    String v7 = uuidV7(Instant.parse("2030-01-01T19:00:00Z"));
    List<String> v7Batch = List.of(uuidV7(Instant.parse("2030-01-01T19:30:00Z")),
        uuidV7(Instant.parse("2030-01-01T19:45:00Z")));
    AtomicInteger runs = new AtomicInteger(); // one count across the switch: a run again counts on
    try (IdemRuntime oneTable = IdemRuntime.builder().dataSource(database.dataSource()).tableName("legacy_paths")
        .clock(clock).databaseTime(false).build()) {
      oneTable.createSchema();
      assertEquals("paid 10 (run 1)", pay(oneTable, "o-1", 10, runs));
      assertEquals("paid 5 (run 2)", payV7(oneTable, v7, 5, runs));
      assertEquals("charged (run 3)", charge(oneTable, "c-1", runs));
      assertEquals(2, consume(oneTable, List.of("b-1", "b-2")));
      assertEquals(2, consumeV7(oneTable, v7Batch));
    }
    try (IdemRuntime switched = builder(clock).tableName("switched_paths").switchingFrom("legacy_paths").build()) {
      switched.createSchema();
      clock.advance(Duration.ofHours(6)); // the next day, inside the old records' window
      assertEquals("paid 10 (run 1)", pay(switched, "o-1", 10, runs), "replayed from the old table");
      assertThrows(IdempotencyKeyReusedException.class, () -> pay(switched, "o-1", 11, runs));
      assertEquals("paid 5 (run 2)", payV7(switched, v7, 5, runs), "a key-time claim replays from the old table");
      assertThrows(IdempotencyKeyReusedException.class, () -> payV7(switched, v7, 6, runs));
      assertEquals("charged (run 3)", charge(switched, "c-1", runs), "a claim command replays from the old table");
      assertEquals(1, consume(switched, List.of("b-1", "b-2", "b-3")), "only the new key of the batch runs");
      String v7New = uuidV7(Instant.parse("2030-01-02T01:00:00Z"));
      assertEquals(1, consumeV7(switched, List.of(v7Batch.get(0), v7Batch.get(1), v7New)));
      assertEquals(3, runs.get(), "no command ran again");
      assertEquals(0, count("SELECT count(*) FROM (SELECT k FROM executions GROUP BY k HAVING count(*) > 1) twice"));
      assertEquals(0, count("SELECT count(*) FROM switched_paths r JOIN legacy_paths o"
          + " ON o.scope = r.scope AND o.idem_key = r.idem_key"), "no key recorded on both sides of the switch");

      clock.set(switched.switchedTableLiveUntil().orElseThrow());
      switched.premakePartitions();
      switched.clearResultCache();
      assertEquals("paid 11 (run 4)", pay(switched, "o-1", 11, runs), "past the old table's window: runs anew");
      assertEquals(2, consume(switched, List.of("b-1", "b-2")), "past the window the old keys run anew");
    }
    database.execute("DROP TABLE legacy_paths", "DROP TABLE switched_paths");
  }

  // ---- keys that carry their time

  private static final CommandSpec<String> PAY_BY_UUID_V7 = CommandSpec.builder("Payments.payV7",
      ResultType.of(String.class)).retention(WINDOW).keyParts("id").payload("amount").keyTime(dev.idem.KeyTime.UUID_V7)
      .build();

  /** A UUID version 7 made at {@code at}: 48 bits of milliseconds, the version, random bits. */
  private static String uuidV7(Instant at) {
    String millis = String.format("%012x", at.toEpochMilli());
    String random = UUID.randomUUID().toString();
    return millis.substring(0, 8) + "-" + millis.substring(8) + "-7" + random.substring(15);
  }

  private String payV7(IdemRuntime on, String id, long amount, AtomicInteger runs) {
    return IdemEngine.of(on).execute(PAY_BY_UUID_V7, new Object[] {id}, new Object[] {amount}, () -> {
      recordExecution(on, id);
      return "paid " + amount + " (run " + runs.incrementAndGet() + ")";
    });
  }

  @Test
  void keysThatCarryTheirTimeAreFiledUnderTheirDayAndRaceAcrossMidnightOnce() throws Exception {
    MutableClock afterMidnight = new MutableClock(BEFORE_MIDNIGHT.plusMillis(150));
    try (IdemRuntime tomorrow = builder(afterMidnight).build()) {
      for (int round = 0; round < 10; round++) {
        String key = uuidV7(BEFORE_MIDNIGHT.minusMillis(100));
        AtomicInteger runs = new AtomicInteger();
        List<String> results = race(8, caller -> payV7(caller % 2 == 0 ? runtime : tomorrow, key, 10, runs));
        assertEquals(1, runs.get(), "round " + round + ": " + results);
        assertTrue(results.stream().allMatch(results.get(0)::equals), results.toString());
        assertEquals(SqlDialect.dayBucket(BEFORE_MIDNIGHT.toEpochMilli()), count("SELECT bucket FROM idem_record"
            + " WHERE idem_key = '" + key + "'"), "filed under the key's day, whichever side claimed it");
      }
      String afterMidnightKey = uuidV7(BEFORE_MIDNIGHT.plusMillis(120));
      AtomicInteger runs = new AtomicInteger();
      payV7(runtime, afterMidnightKey, 5, runs); // claimed before midnight, filed under the key's day: tomorrow
      assertEquals(SqlDialect.dayBucket(BEFORE_MIDNIGHT.toEpochMilli()) + 1, count("SELECT bucket FROM idem_record"
          + " WHERE idem_key = '" + afterMidnightKey + "'"));
      tomorrow.clearResultCache();
      assertEquals("paid 5 (run 1)", payV7(tomorrow, afterMidnightKey, 5, runs));
      assertThrows(IdempotencyKeyReusedException.class, () -> payV7(tomorrow, afterMidnightKey, 6, runs));
    }
  }

  @Test
  void aKeyWhoseTimeIsOutsideTheWindowOrUnreadableIsRefusedAndWritesNothing() {
    AtomicInteger runs = new AtomicInteger();
    dev.idem.runtime.InvalidIdempotencyKeyException stale = assertThrows(
        dev.idem.runtime.InvalidIdempotencyKeyException.class,
        () -> payV7(runtime, uuidV7(BEFORE_MIDNIGHT.minus(WINDOW).minusMillis(1)), 1, runs));
    assertEquals(dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule.KEY_TIME_IMPLAUSIBLE, stale.rule());
    assertTrue(stale.getMessage().contains("outside its dedup window"), stale.getMessage());
    assertEquals(dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule.KEY_TIME_IMPLAUSIBLE, assertThrows(
        dev.idem.runtime.InvalidIdempotencyKeyException.class,
        () -> payV7(runtime, uuidV7(BEFORE_MIDNIGHT.plus(Duration.ofDays(2))), 1, runs)).rule());
    assertEquals(dev.idem.runtime.InvalidIdempotencyKeyException.KeyRule.KEY_TIME_UNREADABLE, assertThrows(
        dev.idem.runtime.InvalidIdempotencyKeyException.class,
        () -> payV7(runtime, UUID.randomUUID().toString(), 1, runs)).rule(), "a version 4 UUID carries no time");
    assertEquals(0, runs.get());
    assertEquals(0, count("SELECT count(*) FROM idem_record"));
    assertEquals("paid 1 (run 1)", payV7(runtime, uuidV7(BEFORE_MIDNIGHT.minus(WINDOW)), 1, runs), "just inside");
  }

  private static final CommandSpec<Void> ON_BATCH_V7 = CommandSpec.builder("Consumers.onBatchV7", ResultType.VOID)
      .retention(WINDOW).keyParts("batch", "group").payload("batch").keyTime(dev.idem.KeyTime.UUID_V7).build();

  private int consumeV7(IdemRuntime on, List<String> ids) {
    return IdemEngine.of(on).executeBatch(ON_BATCH_V7, ids, id -> new Object[] {id, "billing"},
        id -> new Object[] {id}, firstSeen -> {
          for (String id : firstSeen) {
            recordExecution(on, id);
          }
          return firstSeen.size();
        });
  }

  @Test
  void batchesOfKeysThatCarryTheirTimeAreFiledUnderTheKeysDaysAndConsumedOnce() throws Exception {
    MutableClock afterMidnight = new MutableClock(BEFORE_MIDNIGHT.plusMillis(150));
    List<String> ids = List.of(uuidV7(BEFORE_MIDNIGHT.minus(Duration.ofHours(3))), uuidV7(BEFORE_MIDNIGHT),
        uuidV7(BEFORE_MIDNIGHT.plusMillis(120)));
    try (IdemRuntime tomorrow = builder(afterMidnight).build()) {
      List<Integer> consumed = race(8, caller -> consumeV7(caller % 2 == 0 ? runtime : tomorrow,
          caller % 3 == 0 ? ids : ids.subList(1, 3)));
      assertEquals(3, consumed.stream().mapToInt(Integer::intValue).sum(), consumed.toString());
      assertEquals(3, count("SELECT count(*) FROM executions"));
    }
    int today = SqlDialect.dayBucket(BEFORE_MIDNIGHT.toEpochMilli());
    assertEquals(2, count("SELECT count(*) FROM idem_record WHERE bucket = " + today));
    assertEquals(1, count("SELECT count(*) FROM idem_record WHERE bucket = " + (today + 1)
        + " AND idem_key = '" + ids.get(2) + "|billing'"), "filed under the key's day, whoever claimed it");
    assertThrows(dev.idem.runtime.InvalidIdempotencyKeyException.class, () -> consumeV7(runtime,
        List.of(uuidV7(BEFORE_MIDNIGHT), uuidV7(BEFORE_MIDNIGHT.minus(Duration.ofDays(2))))));
    assertEquals(3, count("SELECT count(*) FROM idem_record"), "a batch with an implausible key writes nothing");
  }

  // ---- the transition log

  private void logTransition(String entityId, Instant appliedAt) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement(SqlDialect.of(dev.idem.runtime.Dialect.valueOf(database.database().name())).transitionLogInsertSql())) {
      insert.setString(1, "OrderFlow.pay");
      insert.setString(2, "Order");
      insert.setString(3, entityId);
      insert.setString(4, "NEW");
      insert.setString(5, "PAID");
      insert.setLong(6, appliedAt.toEpochMilli());
      insert.executeUpdate();
    }
  }

  @Test
  void theTransitionLogIsPartitionedByDayAndKeptAsLongAsAsked() throws Exception {
    database.execute("DELETE FROM idem_transition_log");
    try (IdemRuntime keeping = builder(clock).keepTransitionLogFor(Duration.ofDays(2)).build()) {
      for (int day = 1; day <= 3; day++) {
        logTransition("o-" + day, Instant.parse("2030-01-0" + day + "T12:00:00Z"));
      }
      assertEquals(1, count("SELECT count(*) FROM " + partitionRows("idem_transition_log", "idem_transition_log_p20300102")), "routed to its day");
      clock.set(Instant.parse("2030-01-05T13:00:00Z"));
      awaitRowStatistics("idem_transition_log", "idem_transition_log_p20300101");
      events.clear();
      keeping.purgeExpired(100);
      // Kept two days after a day ends: 01-01 and 01-02 ended more than two days before 01-05 13:00; 01-03 did not.
      assertEquals(1, count("SELECT count(*) FROM idem_transition_log"));
      assertEquals(1, count("SELECT count(*) FROM idem_transition_log WHERE entity_id = 'o-3'"));
      assertTrue(events.contains("partitionDropped idem_transition_log idem_transition_log_p20300101 1"),
          events.toString());
      assertEquals(1, count(partitionExistsSql("idem_transition_log", "idem_transition_log_p20300112")),
          "the coming days made with the records'");
    }
    runtime.purgeExpired(100); // without keepTransitionLogFor the log keeps every day
    assertEquals(1, count("SELECT count(*) FROM idem_transition_log"));
  }
}
