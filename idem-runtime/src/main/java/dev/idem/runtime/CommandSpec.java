package dev.idem.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything idem needs to know about one idempotent command: its scope (namespace of its keys), the
 * type of its result, how long results are kept, and the names of its key parts and payload
 * parameters. Immutable; generated code holds one per method in a {@code static final} field.
 *
 * @param <T> the result type
 */
public final class CommandSpec<T> {

  /** Longest scope; the width of the {@code scope} column. */
  static final int MAX_SCOPE_LENGTH = 128;

  private final String scope;
  private final ResultType<T> resultType;
  private final Duration retention;
  private final long retentionMillis;
  private final List<String> keyPartNames;
  private final List<String> payloadNames;

  private CommandSpec(Builder<T> builder) {
    this.scope = builder.scope;
    this.resultType = builder.resultType;
    this.retention = builder.retention;
    this.retentionMillis = builder.retention.toMillis();
    this.keyPartNames = builder.keyPartNames;
    this.payloadNames = builder.payloadNames;
  }

  /**
   * Starts a spec.
   *
   * @param scope the namespace of the command's keys, e.g. {@code "Payments.pay"}; 1 to 128 characters
   * @param resultType the result type
   * @param <T> the result type
   * @return a builder
   */
  public static <T> Builder<T> builder(String scope, ResultType<T> resultType) {
    return new Builder<>(scope, resultType);
  }

  /** @return the namespace of the command's keys */
  public String scope() {
    return scope;
  }

  /** @return the result type */
  public ResultType<T> resultType() {
    return resultType;
  }

  /** @return how long a result is replayed after the command first ran */
  public Duration retention() {
    return retention;
  }

  long retentionMillis() {
    return retentionMillis;
  }

  /** @return the names of the key parts, in order (used in error messages) */
  public List<String> keyPartNames() {
    return keyPartNames;
  }

  /** @return the names of the fingerprinted (non-key) parameters, in order */
  public List<String> payloadNames() {
    return payloadNames;
  }

  @Override
  public String toString() {
    return "CommandSpec[" + scope + ", " + resultType + ", retention " + retention + ", key "
        + keyPartNames + ", payload " + payloadNames + "]";
  }

  /**
   * Builds a {@link CommandSpec}.
   *
   * @param <T> the result type
   */
  public static final class Builder<T> {

    private final String scope;
    private final ResultType<T> resultType;
    private Duration retention = Duration.ofDays(1);
    private List<String> keyPartNames = List.of();
    private List<String> payloadNames = List.of();

    // ---- Reserved for the CLAIM mode (another issue): mode, lease, onInFlight, waitTimeout, replayOn.
    // ---- Add their fields and setters here; build() validates them together with the ones below.

    private Builder(String scope, ResultType<T> resultType) {
      Objects.requireNonNull(scope, "scope");
      if (scope.isEmpty() || scope.length() > MAX_SCOPE_LENGTH) {
        throw new IllegalArgumentException(
            "scope must be 1 to " + MAX_SCOPE_LENGTH + " characters long, got " + scope.length());
      }
      this.scope = scope;
      this.resultType = Objects.requireNonNull(resultType, "resultType");
    }

    /**
     * How long a result is kept and replayed. Default one day.
     *
     * @param retention a positive duration
     * @return this builder
     */
    public Builder<T> retention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.isNegative() || retention.isZero() || retention.toMillis() == 0) {
        throw new IllegalArgumentException("retention must be positive (at least 1ms), got " + retention);
      }
      this.retention = retention;
      return this;
    }

    /**
     * The names of the key parts, in the order generated code passes them.
     *
     * @param names the names, used in error messages
     * @return this builder
     */
    public Builder<T> keyParts(String... names) {
      this.keyPartNames = names(names, "key part");
      return this;
    }

    /**
     * The names of the fingerprinted parameters, in the order generated code passes them.
     *
     * @param names the names, used as property names of the fingerprinted JSON object
     * @return this builder
     */
    public Builder<T> payload(String... names) {
      this.payloadNames = names(names, "payload");
      return this;
    }

    /** @return the immutable spec */
    public CommandSpec<T> build() {
      return new CommandSpec<>(this);
    }

    private static List<String> names(String[] names, String what) {
      List<String> copy = List.of(names); // rejects null names
      if (copy.stream().distinct().count() != copy.size()) {
        throw new IllegalArgumentException("duplicate " + what + " names: " + copy);
      }
      for (String name : copy) {
        if (name.isEmpty()) {
          throw new IllegalArgumentException("empty " + what + " name in " + copy);
        }
      }
      return copy;
    }
  }
}
