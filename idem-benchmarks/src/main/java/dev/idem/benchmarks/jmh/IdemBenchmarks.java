package dev.idem.benchmarks.jmh;

import dev.idem.testing.TestDatabase;
import dev.idem.benchmarks.jmh.BenchOrders.OrderReceipt;
import dev.idem.runtime.TransitionResult;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One method per operation; the database is a parameter and the thread count is set by {@link BenchmarkMain}.
 * Every fork gets a fresh database, so first executions never meet a key from an earlier run. Method names are
 * the operation ids the report uses ({@link Operation}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IdemBenchmarks {

  /** The database of this fork, shared by its threads. */
  @State(Scope.Benchmark)
  public static class Db {
    @Param({"H2", "PostgreSQL", "MariaDB"})
    public String database;

    BenchDatabase benchDatabase;
    Operations operations;
    final AtomicInteger threadIndexes = new AtomicInteger();

    @Setup(Level.Trial)
    public void open() {
      benchDatabase = BenchDatabase.open(TestDatabase.of(database));
      operations = new Operations(benchDatabase.database(), benchDatabase.dataSource());
      operations.createSchema();
    }

    @TearDown(Level.Trial)
    public void close() {
      benchDatabase.close();
    }
  }

  /** One benchmark thread: its index (0..7) and its own counter for fresh keys. */
  @State(Scope.Thread)
  public static class Caller {
    int threadIndex;
    long counter;

    @Setup(Level.Trial)
    public void register(Db db) {
      threadIndex = db.threadIndexes.getAndIncrement();
    }

    long next() {
      return counter++;
    }
  }

  /** The thin writer's held connection; only the database-limit benchmark takes one out of the pool. */
  @State(Scope.Thread)
  public static class HeldConnection {
    Operations.ThinWriter writer;

    @Setup(Level.Trial)
    public void take(Db db) throws SQLException {
      writer = db.operations.thinWriter();
    }

    @TearDown(Level.Trial)
    public void giveBack() throws SQLException {
      writer.close();
    }
  }

  /** Completed keys for the replay benchmarks. */
  @State(Scope.Benchmark)
  public static class CompletedKeys {
    @Setup(Level.Trial)
    public void complete(Db db) {
      db.operations.completeReplayKeys();
    }
  }

  /** The invoices of the transition benchmarks, one pair per thread index (created up front, for any thread count). */
  @State(Scope.Benchmark)
  public static class Invoices {
    @Setup(Level.Trial)
    public void create(Db db) throws SQLException {
      for (int threadIndex = 0; threadIndex < Operations.MAX_THREADS; threadIndex++) {
        db.operations.createInvoices(threadIndex);
      }
    }
  }

  @Benchmark
  public void dbLimit(HeldConnection held, Caller caller) throws SQLException {
    long n = caller.next();
    held.writer.write(Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public void plain(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    db.operations.plain(Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWritten(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWritten(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWrittenCompletedAfter(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWrittenCompletedAfter(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public void handWrittenGuardedVoid(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    db.operations.handWrittenGuardedVoid(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWrittenClaimFirst(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWrittenClaimFirst(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWrittenIdemShaped(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWrittenIdemShaped(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWrittenStatementTransaction(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWrittenStatementTransaction(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemTransactionalLookupFirst(Db db, Caller caller) {
    long n = caller.next();
    return db.operations.idemTransactionalLookupFirst(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWrittenReadFirst(Db db, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWrittenReadFirst(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemTransactional(Db db, Caller caller) {
    long n = caller.next();
    return db.operations.idemTransactional(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public void idemTransactionalVoid(Db db, Caller caller) {
    long n = caller.next();
    db.operations.idemTransactionalVoid(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public void idemTransactionalVoidPromised(Db db, Caller caller) {
    long n = caller.next();
    db.operations.idemTransactionalVoidPromised(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemClaim(Db db, Caller caller) {
    long n = caller.next();
    return db.operations.idemClaim(Operations.freshKey(caller.threadIndex, n),
        Operations.order(Operations.freshOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemReplayCached(Db db, CompletedKeys keys, Caller caller) {
    long n = caller.next();
    return db.operations.idemReplayCached(Operations.replayKey(caller.threadIndex, n),
        Operations.order(Operations.replayOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemReplay(Db db, CompletedKeys keys, Caller caller) {
    long n = caller.next();
    return db.operations.idemReplay(Operations.replayKey(caller.threadIndex, n),
        Operations.order(Operations.replayOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemReplayClaimFirst(Db db, CompletedKeys keys, Caller caller) {
    long n = caller.next();
    return db.operations.idemReplayClaimFirst(Operations.replayKey(caller.threadIndex, n),
        Operations.order(Operations.replayOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt idemReplayLookupFirst(Db db, CompletedKeys keys, Caller caller) {
    long n = caller.next();
    return db.operations.idemReplayLookupFirst(Operations.replayKey(caller.threadIndex, n),
        Operations.order(Operations.lookupReplayOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public OrderReceipt handWrittenReplay(Db db, CompletedKeys keys, Caller caller) throws SQLException {
    long n = caller.next();
    return db.operations.handWrittenReplay(Operations.replayKey(caller.threadIndex, n),
        Operations.order(Operations.replayOrderId(caller.threadIndex, n)));
  }

  @Benchmark
  public TransitionResult transitionApplied(Db db, Invoices invoices, Caller caller) {
    return db.operations.transitionApplied(caller.threadIndex, caller.next());
  }

  @Benchmark
  public TransitionResult transitionRepeated(Db db, Invoices invoices, Caller caller) {
    return db.operations.transitionRepeated(caller.threadIndex);
  }
}
