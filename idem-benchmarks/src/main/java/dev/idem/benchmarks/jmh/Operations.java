package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import dev.idem.benchmarks.jmh.BenchOrders.OrderReceipt;
import dev.idem.benchmarks.jmh.BenchOrders.PlaceOrder;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransitionResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Every benchmarked operation on one database, written once and used both by the JMH benchmarks and by the
 * statement counter, so that the counts describe exactly the code that is timed.
 */
final class Operations {

  /** Completed keys per thread index that replay benchmarks cycle through. */
  static final int REPLAY_KEYS_PER_THREAD = 256;
  static final int MAX_THREADS = BenchDatabase.POOL_SIZE;

  private final DataSource dataSource;
  private final IdemRuntime runtime;
  private final BenchOrders orders;
  /**
   * The same commands on a runtime whose application promised that no body commits implicitly (no DDL in bodies):
   * on H2 and MariaDB a void command's claim is then its whole outcome, as on PostgreSQL.
   */
  private final BenchOrders promisingOrders;
  /** The same command on a runtime without the local result cache: every replay reads the table. */
  private final BenchOrders uncachedOrders;
  /** The same command without the cache on a runtime that always claims first ({@code adaptiveLookupFirst(false)}). */
  private final BenchOrders claimingFirstOrders;
  private final HandWrittenOrders handWritten;
  private final HandWrittenOrders handWrittenIdemShaped;
  private final HandWrittenOrders handWrittenStatementTransaction;
  private final HandWrittenReplay handWrittenReplay;
  private final InvoiceFlow invoices;

  Operations(TestDatabase database, DataSource dataSource) {
    this.dataSource = dataSource;
    // Defaults, as users get them: the local result cache is on.
    this.runtime = IdemRuntime.builder().dataSource(dataSource).build();
    this.orders = new BenchOrders_Idempotent(new JdbcBenchOrders(runtime), runtime);
    IdemRuntime uncached = IdemRuntime.builder().dataSource(dataSource).resultCache(false).build();
    this.uncachedOrders = new BenchOrders_Idempotent(new JdbcBenchOrders(uncached), uncached);
    IdemRuntime claimingFirst = IdemRuntime.builder().dataSource(dataSource).resultCache(false)
        .adaptiveLookupFirst(false).build();
    this.claimingFirstOrders = new BenchOrders_Idempotent(new JdbcBenchOrders(claimingFirst), claimingFirst);
    IdemRuntime promising = IdemRuntime.builder().dataSource(dataSource).bodiesNeverCommitImplicitly(true).build();
    this.promisingOrders = new BenchOrders_Idempotent(new JdbcBenchOrders(promising), promising);
    this.handWritten = HandWrittenOrders.forDatabase(database, dataSource, HandWrittenOrders.KeyTable.LEAN);
    this.handWrittenIdemShaped =
        HandWrittenOrders.forDatabase(database, dataSource, HandWrittenOrders.KeyTable.IDEM_SHAPED);
    // Opened as idem opens its own transactions on this database: START TRANSACTION on MariaDB only (H2 has no
    // such statement, and pgjdbc sends nothing for the auto-commit switch), so elsewhere it is (2) once more.
    this.handWrittenStatementTransaction = HandWrittenOrders.forDatabase(database, dataSource,
        HandWrittenOrders.KeyTable.LEAN, database == TestDatabase.MARIADB
            ? HandWrittenOrders.TransactionStart.STATEMENTS
            : HandWrittenOrders.TransactionStart.AUTO_COMMIT_SWITCH);
    this.handWrittenReplay = new HandWrittenReplay(dataSource, "bench.orders.place");
    this.invoices = new InvoiceFlow_Idempotent(runtime);
  }

  /** Creates idem's tables; once per database. */
  void createSchema() {
    runtime.createSchema();
  }

  // ---- The payloads: the same shape for every operation; the order id makes each first execution unique.

  static PlaceOrder order(long orderId) {
    return new PlaceOrder(orderId, "customer-42", "SKU-1001", 2, 1999);
  }

  /** A fresh key and order id per call: thread index and a per-thread counter (the database is new per run). */
  static String freshKey(int threadIndex, long counter) {
    return "t" + threadIndex + "-" + counter;
  }

  static long freshOrderId(int threadIndex, long counter) {
    return (threadIndex + 1L) * 1_000_000_000_000L + counter;
  }

  static String replayKey(int threadIndex, long counter) {
    return "r" + threadIndex + "-" + (counter % REPLAY_KEYS_PER_THREAD);
  }

  static long replayOrderId(int threadIndex, long counter) {
    return 9_000_000_000_000_000L + threadIndex * (long) REPLAY_KEYS_PER_THREAD + counter % REPLAY_KEYS_PER_THREAD;
  }

  /** The order ids of the lookupFirst command's completed keys: their own orders, apart from the others'. */
  static long lookupReplayOrderId(int threadIndex, long counter) {
    return replayOrderId(threadIndex, counter) + 100_000_000_000_000L;
  }

  /**
   * One call of {@code operation}, as its {@link IdemBenchmarks} method makes it: for first executions a fresh key
   * and order id from the thread index and its counter {@code n}; for replays one of the thread index's completed
   * keys; for transitions the thread index's invoices. The interleaved benchmark and the statement counter call
   * through here, so that all three describe the same code.
   */
  Object call(Operation operation, int threadIndex, long n) throws SQLException {
    String key = Operations.freshKey(threadIndex, n);
    PlaceOrder order = Operations.order(Operations.freshOrderId(threadIndex, n));
    return switch (operation) {
      case DB_LIMIT -> throw new IllegalArgumentException("the database limit holds its own connection: JMH only");
      case PLAIN -> {
        plain(order);
        yield null;
      }
      case HAND_WRITTEN -> handWritten(key, order);
      case HAND_WRITTEN_IDEM_SHAPED -> handWrittenIdemShaped(key, order);
      case HAND_WRITTEN_STATEMENT_TRANSACTION -> handWrittenStatementTransaction(key, order);
      case HAND_WRITTEN_COMPLETED_AFTER -> handWrittenCompletedAfter(key, order);
      case IDEM_TRANSACTIONAL -> idemTransactional(key, order);
      case IDEM_TRANSACTIONAL_VOID -> {
        idemTransactionalVoid(key, order);
        yield null;
      }
      case IDEM_TRANSACTIONAL_VOID_PROMISED -> {
        idemTransactionalVoidPromised(key, order);
        yield null;
      }
      case IDEM_TRANSACTIONAL_LOOKUP_FIRST -> idemTransactionalLookupFirst(key, order);
      case HAND_WRITTEN_READ_FIRST -> handWrittenReadFirst(key, order);
      case HAND_WRITTEN_GUARDED_VOID -> {
        handWrittenGuardedVoid(key, order);
        yield null;
      }
      case IDEM_CLAIM -> idemClaim(key, order);
      case HAND_WRITTEN_CLAIM_FIRST -> handWrittenClaimFirst(key, order);
      case IDEM_REPLAY -> idemReplay(replayKey(threadIndex, n), order(replayOrderId(threadIndex, n)));
      case IDEM_REPLAY_CLAIM_FIRST ->
          idemReplayClaimFirst(replayKey(threadIndex, n), order(replayOrderId(threadIndex, n)));
      case HAND_WRITTEN_REPLAY -> handWrittenReplay(replayKey(threadIndex, n), order(replayOrderId(threadIndex, n)));
      case IDEM_REPLAY_LOOKUP_FIRST ->
          idemReplayLookupFirst(replayKey(threadIndex, n), order(lookupReplayOrderId(threadIndex, n)));
      case IDEM_REPLAY_CACHED -> idemReplayCached(replayKey(threadIndex, n), order(replayOrderId(threadIndex, n)));
      case TRANSITION_APPLIED -> transitionApplied(threadIndex, n);
      case TRANSITION_REPEATED -> transitionRepeated(threadIndex);
    };
  }

  // ---- (0) The database's own limit: a held connection, a held prepared INSERT, commit.

  ThinWriter thinWriter() throws SQLException {
    return new ThinWriter(dataSource.getConnection());
  }

  /** The thinnest JDBC write: nothing but executeUpdate and commit per operation. */
  static final class ThinWriter implements AutoCloseable {
    private final Connection connection;
    private final PreparedStatement insert;

    ThinWriter(Connection connection) throws SQLException {
      this.connection = connection;
      connection.setAutoCommit(false);
      this.insert = connection.prepareStatement(OrderRows.INSERT);
    }

    void write(PlaceOrder order) throws SQLException {
      OrderRows.bind(insert, order);
      insert.executeUpdate();
      connection.commit();
    }

    @Override
    public void close() throws SQLException {
      insert.close();
      connection.setAutoCommit(true);
      connection.close();
    }
  }

  // ---- (1) plain: the business INSERT in its own transaction, through the pool, no idempotency.

  void plain(PlaceOrder order) throws SQLException {
    OwnTransaction.run(dataSource, connection -> {
      OrderRows.insert(connection, order);
    });
  }

  // ---- (2) the hand-written pattern.

  OrderReceipt handWritten(String key, PlaceOrder order) throws SQLException {
    return handWritten.placeOrder(key, order);
  }

  /** The control: the same hand-written code, claiming in a table shaped like idem_record. */
  OrderReceipt handWrittenIdemShaped(String key, PlaceOrder order) throws SQLException {
    return handWrittenIdemShaped.placeOrder(key, order);
  }

  /**
   * The control of the baseline's best setup on MariaDB: the same hand-written code, its transaction opened with a
   * START TRANSACTION statement as idem opens its own there, one round trip fewer than the auto-commit switches.
   */
  OrderReceipt handWrittenStatementTransaction(String key, PlaceOrder order) throws SQLException {
    return handWrittenStatementTransaction.placeOrder(key, order);
  }

  // ---- (3) idem TRANSACTIONAL through the generated wrapper, with a stored result and void.

  OrderReceipt idemTransactional(String key, PlaceOrder order) {
    return orders.placeOrder(key, order);
  }

  void idemTransactionalVoid(String key, PlaceOrder order) {
    orders.recordOrder(key, order);
  }

  /** {@link #idemTransactionalVoid} with the opt-in {@code bodiesNeverCommitImplicitly(true)}. */
  void idemTransactionalVoidPromised(String key, PlaceOrder order) {
    promisingOrders.recordOrder(key, order);
  }

  /** {@link #idemTransactional} reading the key's record first ({@code lookupFirst}); no result cache. */
  OrderReceipt idemTransactionalLookupFirst(String key, PlaceOrder order) {
    return uncachedOrders.placeOrderLookingUp(key, order);
  }

  /** The floor of {@link #idemTransactionalLookupFirst}: one read in auto-commit, then (2c) on a miss. */
  OrderReceipt handWrittenReadFirst(String key, PlaceOrder order) throws SQLException {
    return handWrittenIdemShaped.placeOrderReadFirst(key, order);
  }

  // ---- (4) idem CLAIM: the claim commits on its own, then the body and the completion in a second transaction.

  OrderReceipt idemClaim(String key, PlaceOrder order) {
    return orders.placeOrderClaimed(key, order);
  }

  /**
   * The floor of a TRANSACTIONAL command with a result, by hand: the key claimed first in a key table shaped like
   * idem_record (so the row carries what idem's guarantees need: fingerprint, state, expiry), the business write,
   * the response written by an UPDATE, one commit.
   */
  OrderReceipt handWrittenCompletedAfter(String key, PlaceOrder order) throws SQLException {
    return handWrittenIdemShaped.placeOrderCompletedAfter(key, order);
  }

  /**
   * The floor of the default void path where DDL commits implicitly (H2, MariaDB), by hand: the key claimed
   * PENDING first, the business write, the key completed by an UPDATE, one commit; no response.
   */
  void handWrittenGuardedVoid(String key, PlaceOrder order) throws SQLException {
    handWrittenIdemShaped.recordOrderGuarded(key, order);
  }

  /** The floor of CLAIM, by hand: the key committed first (idem_record's shape), then work, response, commit. */
  OrderReceipt handWrittenClaimFirst(String key, PlaceOrder order) throws SQLException {
    return handWrittenIdemShaped.placeOrderClaimFirst(key, order);
  }

  // ---- (5) replays of completed keys.

  /** Completes {@link #REPLAY_KEYS_PER_THREAD} keys per thread index, one transaction per thread index. */
  void completeReplayKeys() {
    for (int thread = 0; thread < MAX_THREADS; thread++) {
      int threadIndex = thread;
      runtime.runInTransaction(connection -> {
        for (int i = 0; i < REPLAY_KEYS_PER_THREAD; i++) {
          orders.placeOrder(replayKey(threadIndex, i), order(replayOrderId(threadIndex, i)));
          orders.placeOrderLookingUp(replayKey(threadIndex, i), order(lookupReplayOrderId(threadIndex, i)));
        }
      });
    }
  }

  OrderReceipt idemReplay(String key, PlaceOrder order) {
    return uncachedOrders.placeOrder(key, order);
  }

  /** {@link #idemReplay} on a runtime told to claim first whatever the traffic: the claim, the read, the commit. */
  OrderReceipt idemReplayClaimFirst(String key, PlaceOrder order) {
    return claimingFirstOrders.placeOrder(key, order);
  }

  /** The floor of {@link #idemReplay}: see {@link HandWrittenReplay}. */
  OrderReceipt handWrittenReplay(String key, PlaceOrder order) throws SQLException {
    return handWrittenReplay.replay(key, order);
  }

  /** A replay read before the claim ({@code lookupFirst}): one SELECT in auto-commit, no transaction. */
  OrderReceipt idemReplayLookupFirst(String key, PlaceOrder order) {
    return uncachedOrders.placeOrderLookingUp(key, order);
  }

  /** Answered from the local cache once the key was seen (the first round through the keys fills it). */
  OrderReceipt idemReplayCached(String key, PlaceOrder order) {
    return orders.placeOrder(key, order);
  }

  // ---- (6) state transitions: one row per thread moved back and forth (applied), one left PAID (repeated).

  static long movingInvoice(int threadIndex) {
    return threadIndex + 1L;
  }

  static long paidInvoice(int threadIndex) {
    return 1000L + threadIndex;
  }

  void createInvoices(int threadIndex) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement insert = connection.prepareStatement(
            "INSERT INTO bench_invoices (id, status, version) VALUES (?, ?, 0)")) {
      insert.setLong(1, movingInvoice(threadIndex));
      insert.setString(2, "OPEN");
      insert.executeUpdate();
      insert.setLong(1, paidInvoice(threadIndex));
      insert.setString(2, "PAID");
      insert.executeUpdate();
    }
  }

  /** Pays the thread's invoice on even calls and reopens it on odd ones: every call applies a transition. */
  TransitionResult transitionApplied(int threadIndex, long counter) {
    long id = movingInvoice(threadIndex);
    TransitionResult result = (counter & 1) == 0 ? invoices.pay(id) : invoices.reopen(id);
    if (result != TransitionResult.APPLIED) {
      throw new IllegalStateException("expected APPLIED, got " + result);
    }
    return result;
  }

  /** Pays an invoice that is paid already: a repeated callback. */
  TransitionResult transitionRepeated(int threadIndex) {
    TransitionResult result = invoices.pay(paidInvoice(threadIndex));
    if (result != TransitionResult.ALREADY_APPLIED) {
      throw new IllegalStateException("expected ALREADY_APPLIED, got " + result);
    }
    return result;
  }
}
