package dev.idem.benchmarks.report;

/**
 * One JMH result: an operation's throughput on one database with one thread count.
 *
 * @param operation the benchmark method (the operation's id)
 * @param database the database's display name
 * @param threads the number of benchmark threads
 * @param opsPerSecond JMH's score
 * @param error JMH's score error: half the 99.9% confidence interval (NaN with fewer than two iterations)
 */
public record Figure(String operation, String database, int threads, double opsPerSecond, double error) {

  /** @return this / other, with the error propagated from both relative errors */
  Ratio over(Figure other) {
    double value = opsPerSecond / other.opsPerSecond;
    double relative = Math.sqrt(square(error / opsPerSecond) + square(other.error / other.opsPerSecond));
    return new Ratio(value, value * relative);
  }

  private static double square(double x) {
    return x * x;
  }

  /** A ratio of two throughputs and its propagated error. */
  record Ratio(double value, double error) {}
}
