package dev.idem.integration.lookups;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** What the read-first contract tests share: racing calls, and the record statements a call made. */
final class Calls {

  private Calls() {}

  /**
   * Starts {@code count} calls on {@code callers} at once and collects their distinct results.
   *
   * @param call the i-th call
   */
  static <T> Set<T> raced(ExecutorService callers, int count, IntFunction<Callable<T>> call) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> calls = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Callable<T> one = call.apply(i);
      calls.add(callers.submit(() -> {
        go.await();
        return one.call();
      }));
    }
    go.countDown();
    Set<T> results = new HashSet<>();
    for (Future<T> result : calls) {
      results.add(result.get(60, TimeUnit.SECONDS));
    }
    return results;
  }

  /** The statements that read or write records, upper-cased: without those that open or end transactions. */
  static List<String> idemStatements(List<String> executed) {
    return executed.stream()
        .map(sql -> sql.toUpperCase(Locale.ROOT))
        .filter(sql -> !sql.startsWith("START TRANSACTION") && !sql.startsWith("SAVEPOINT")
            && !sql.startsWith("RELEASE SAVEPOINT") && !sql.equals("COMMIT") && !sql.equals("ROLLBACK"))
        .toList();
  }
}
