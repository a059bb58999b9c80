package dev.idem.runtime.internal;

import dev.idem.ExpiredLease;
import dev.idem.InFlight;
import dev.idem.KeyTime;
import dev.idem.Mode;
import dev.idem.Store;
import dev.idem.UndeclaredFailure;
import java.time.Duration;
import java.util.ArrayList;
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
  /** Longest result shape; the width of the {@code result_shape} column. */
  static final int MAX_RESULT_SHAPE_LENGTH = 64;
  /** The defaults of {@code @IdempotentCommand}: retention one day, lease 30 s, wait timeout 10 s. */
  private static final long DEFAULT_RETENTION_MILLIS = 86_400_000L;
  private static final long DEFAULT_LEASE_MILLIS = 30_000L;
  private static final long DEFAULT_WAIT_TIMEOUT_MILLIS = 10_000L;

  private final String scope;
  private final ResultType<T> resultType;
  private final Duration retention;
  private final long retentionMillis;
  private final List<String> keyPartNames;
  private final List<String> payloadNames;
  private final Mode mode;
  private final Duration lease;
  private final long leaseMillis;
  private final InFlight onInFlight;
  private final ExpiredLease onExpiredLease;
  private final UndeclaredFailure onUndeclaredFailure;
  private final Duration waitTimeout;
  private final List<ReplayableFailure<?>> replayOn;
  private final String resultShape;
  private final String declaredBy;
  /** Whether the key's first part carries its time ({@code @IdempotentCommand(keyTime = …)}). */
  private final KeyTime keyTime;
  /** Whether the key is derived: the key parts (the caller's identity) plus the payload's fingerprint. */
  private final boolean derivedKey;
  /** Where the command's records live ({@code @IdempotentCommand(store = …)}). */
  private final Store store;
  /** Whether a call outside any transaction reads the key's record before claiming it. */
  private final boolean lookupFirst;
  /** What makes two specs the same command, for {@link #sameCommandAs}; computed once. */
  private final String identity;

  private CommandSpec(String scope, ResultType<T> resultType, String resultShape, long retentionMillis,
      List<String> keyPartNames, List<String> payloadNames, String declaredBy, Mode mode, long leaseMillis,
      InFlight onInFlight, long waitTimeoutMillis, List<ReplayableFailure<?>> replayOn, KeyTime keyTime,
      ExpiredLease onExpiredLease, UndeclaredFailure onUndeclaredFailure, Store store, boolean derivedKey,
      boolean lookupFirst) {
    this.scope = checkScope(scope);
    this.derivedKey = derivedKey;
    if (derivedKey && keyTime != KeyTime.NONE) {
      throw new IllegalArgumentException("a derived key carries no time: keyTime needs keys the caller sends");
    }
    this.store = Objects.requireNonNull(store, "store");
    if (store == Store.REDIS && (mode != Mode.CLAIM || keyTime != KeyTime.NONE
        || onExpiredLease != ExpiredLease.TAKE_OVER || onUndeclaredFailure != UndeclaredFailure.RELEASE)) {
      throw new IllegalArgumentException("store REDIS needs mode CLAIM, no keyTime, onExpiredLease TAKE_OVER and"
          + " onUndeclaredFailure RELEASE (parking and day partitions need the database's records)");
    }
    if (lookupFirst && store != Store.DATABASE) {
      throw new IllegalArgumentException("lookupFirst reads the key's database record: it needs store DATABASE");
    }
    this.lookupFirst = lookupFirst;
    this.keyTime = Objects.requireNonNull(keyTime, "keyTime");
    this.resultType = Objects.requireNonNull(resultType, "resultType");
    this.retentionMillis = positive(retentionMillis, "retention");
    this.retention = Duration.ofMillis(retentionMillis);
    this.keyPartNames = keyPartNames;
    this.payloadNames = payloadNames;
    this.mode = Objects.requireNonNull(mode, "mode");
    this.leaseMillis = positive(leaseMillis, "lease");
    this.lease = Duration.ofMillis(leaseMillis);
    this.onInFlight = Objects.requireNonNull(onInFlight, "onInFlight");
    this.onExpiredLease = Objects.requireNonNull(onExpiredLease, "onExpiredLease");
    this.onUndeclaredFailure = Objects.requireNonNull(onUndeclaredFailure, "onUndeclaredFailure");
    this.waitTimeout = Duration.ofMillis(positive(waitTimeoutMillis, "waitTimeout"));
    this.replayOn = replayOn;
    this.resultShape = resultShape != null ? checkResultShape(resultShape) : defaultResultShape(resultType);
    if (declaredBy != null && declaredBy.isEmpty()) {
      throw new IllegalArgumentException("declaredBy must not be empty");
    }
    this.declaredBy = declaredBy;
    this.identity = (declaredBy == null ? "" : declaredBy + " ") + "returning " + resultType.type().getTypeName()
        + " (shape " + this.resultShape + "), key " + keyPartNames + ", payload " + payloadNames + ", " + mode
        + (replayOn.isEmpty() ? "" : ", replayOn " + replayOn.stream().map(ReplayableFailure::storedName).toList())
        + (keyTime == KeyTime.NONE ? "" : ", keyTime " + keyTime)
        + (store == Store.DATABASE ? "" : ", store " + store);
  }

  /**
   * This command with keys that carry their time, as generated code declares a command with
   * {@code @IdempotentCommand(keyTime = …)}.
   *
   * @param keyTime the format of the key's first part
   * @return a copy of this spec with {@code keyTime}
   */
  public CommandSpec<T> withKeyTime(KeyTime keyTime) {
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, keyPartNames, payloadNames, declaredBy,
        mode, leaseMillis, onInFlight, waitTimeout.toMillis(), replayOn, keyTime, onExpiredLease,
        onUndeclaredFailure, store, derivedKey, lookupFirst);
  }

  /**
   * This command with its records in {@code store}, as generated code declares a command with
   * {@code @IdempotentCommand(store = …)}.
   *
   * @param store where the records live
   * @return a copy of this spec with {@code store}
   * @throws IllegalArgumentException if the command needs the database ({@link Store#REDIS} needs
   *     {@link Mode#CLAIM}, no key time and the default lease and failure policies)
   */
  public CommandSpec<T> inStore(Store store) {
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, keyPartNames, payloadNames, declaredBy,
        mode, leaseMillis, onInFlight, waitTimeout.toMillis(), replayOn, keyTime, onExpiredLease,
        onUndeclaredFailure, store, derivedKey, lookupFirst);
  }

  /**
   * This command with a derived key, as generated code declares a command with
   * {@code @IdempotentCommand(window = …, identity = …)}: its key is its one key part (the caller's identity) and
   * the payload's fingerprint, and its retention is the window.
   *
   * @return a copy of this spec whose key is derived
   */
  public CommandSpec<T> derivingKey() {
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, keyPartNames, payloadNames, declaredBy,
        mode, leaseMillis, onInFlight, waitTimeout.toMillis(), replayOn, keyTime, onExpiredLease,
        onUndeclaredFailure, store, true, lookupFirst);
  }

  /**
   * This command reading the key's record before claiming it, as generated code declares a command with
   * {@code @IdempotentCommand(lookupFirst = true)}: a retry of a completed key replays from that one read, a first
   * execution pays it on top of the claim.
   *
   * @return a copy of this spec that looks up first
   * @throws IllegalArgumentException if the command's records are not in the database
   */
  public CommandSpec<T> lookingUpFirst() {
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, keyPartNames, payloadNames, declaredBy,
        mode, leaseMillis, onInFlight, waitTimeout.toMillis(), replayOn, keyTime, onExpiredLease,
        onUndeclaredFailure, store, derivedKey, true);
  }

  /** @return whether a call outside any transaction reads the key's record before claiming it */
  public boolean lookupFirst() {
    return lookupFirst;
  }

  /** @return whether the key is derived from the caller's identity and the payload's fingerprint */
  public boolean derivedKey() {
    return derivedKey;
  }

  /** @return where the command's records live */
  public Store store() {
    return store;
  }

  /** @return whether the key's first part carries its time, and in which format */
  public KeyTime keyTime() {
    return keyTime;
  }

  /**
   * A {@link Mode#TRANSACTIONAL} command, as generated code declares it: one call with every value literal, so that
   * javac infers nothing (the caller passes {@code T} as the type witness) and nothing is parsed at class load.
   *
   * @param scope the namespace of the command's keys; 1 to 128 characters
   * @param resultType the type of the stored result ({@link ResultType#VOID} for none)
   * @param resultShape the result's shape (see {@link Builder#resultShape}), or null for a command without a result
   * @param retentionMillis how long a result is replayed, in milliseconds; positive
   * @param keyParts the names of the key parts, in the order generated code passes them
   * @param payload the names of the fingerprinted parameters, in the order generated code passes them
   * @param declaredBy the declaring method, e.g. {@code com.acme.Payments#pay}
   * @param replayOn the exception types that are business outcomes
   * @param <T> the result type
   * @return the spec
   * @throws IllegalArgumentException as the {@link Builder}'s methods for the same values
   */
  public static <T> CommandSpec<T> transactional(String scope, ResultType<T> resultType, String resultShape,
      long retentionMillis, String[] keyParts, String[] payload, String declaredBy,
      ReplayableFailure<?>... replayOn) {
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, names(keyParts, "key part"),
        names(payload, "payload"), Objects.requireNonNull(declaredBy, "declaredBy"), Mode.TRANSACTIONAL,
        DEFAULT_LEASE_MILLIS, InFlight.FAIL, DEFAULT_WAIT_TIMEOUT_MILLIS, replayable(replayOn), KeyTime.NONE,
        ExpiredLease.TAKE_OVER, UndeclaredFailure.RELEASE, Store.DATABASE, false, false);
  }

  /**
   * A {@link Mode#CLAIM} command, as generated code declares it; see {@link #transactional}.
   *
   * @param scope the namespace of the command's keys; 1 to 128 characters
   * @param resultType the type of the stored result ({@link ResultType#VOID} for none)
   * @param resultShape the result's shape, or null for a command without a result
   * @param retentionMillis how long a result is replayed, in milliseconds; positive
   * @param keyParts the names of the key parts
   * @param payload the names of the fingerprinted parameters
   * @param declaredBy the declaring method
   * @param leaseMillis how long an in-flight claim holds, in milliseconds; positive
   * @param onInFlight what a caller does while another one holds the key
   * @param waitTimeoutMillis ({@link InFlight#WAIT}) how long to wait for the other caller's result; positive
   * @param replayOn the exception types that are business outcomes
   * @param <T> the result type
   * @return the spec
   * @throws IllegalArgumentException as the {@link Builder}'s methods for the same values
   */
  public static <T> CommandSpec<T> claim(String scope, ResultType<T> resultType, String resultShape,
      long retentionMillis, String[] keyParts, String[] payload, String declaredBy, long leaseMillis,
      InFlight onInFlight, long waitTimeoutMillis, ReplayableFailure<?>... replayOn) {
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, names(keyParts, "key part"),
        names(payload, "payload"), Objects.requireNonNull(declaredBy, "declaredBy"), Mode.CLAIM, leaseMillis,
        onInFlight, waitTimeoutMillis, replayable(replayOn), KeyTime.NONE, ExpiredLease.TAKE_OVER,
        UndeclaredFailure.RELEASE, Store.DATABASE, false, false);
  }

  /**
   * This {@link Mode#CLAIM} command with other policies for an ended lease and an undeclared failure; generated
   * code calls it only where the annotation sets one.
   *
   * @param expiredLease what a lease that ended before an outcome was recorded means
   * @param undeclaredFailure what a body's exception not listed in replayOn does to the key
   * @return the spec with those policies
   */
  public CommandSpec<T> parking(ExpiredLease expiredLease, UndeclaredFailure undeclaredFailure) {
    if (mode != Mode.CLAIM) {
      throw new IllegalArgumentException("onExpiredLease and onUndeclaredFailure apply to CLAIM commands only");
    }
    return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, keyPartNames, payloadNames,
        declaredBy, mode, leaseMillis, onInFlight, waitTimeout.toMillis(), replayOn, keyTime, expiredLease,
        undeclaredFailure, store, derivedKey, lookupFirst);
  }

  private static String checkScope(String scope) {
    Objects.requireNonNull(scope, "scope");
    if (scope.isEmpty() || scope.length() > MAX_SCOPE_LENGTH) {
      throw new IllegalArgumentException(
          "scope must be 1 to " + MAX_SCOPE_LENGTH + " characters long, got " + scope.length());
    }
    return scope;
  }

  private static String checkResultShape(String shape) {
    if (shape.isEmpty() || shape.length() > MAX_RESULT_SHAPE_LENGTH) {
      throw new IllegalArgumentException("resultShape must be 1 to " + MAX_RESULT_SHAPE_LENGTH
          + " characters long, got " + shape.length());
    }
    return shape;
  }

  private static long positive(long millis, String what) {
    if (millis <= 0) {
      throw new IllegalArgumentException(what + " must be positive (at least 1ms), got " + millis + "ms");
    }
    return millis;
  }

  private static Duration positive(Duration duration, String what) {
    Objects.requireNonNull(duration, what);
    if (duration.isNegative() || duration.isZero() || duration.toMillis() == 0) {
      throw new IllegalArgumentException(what + " must be positive (at least 1ms), got " + duration);
    }
    return duration;
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

  private static List<ReplayableFailure<?>> replayable(ReplayableFailure<?>... failures) {
    List<ReplayableFailure<?>> listed = new ArrayList<>(failures.length);
    for (ReplayableFailure<?> failure : failures) {
      Objects.requireNonNull(failure, "failure");
      for (ReplayableFailure<?> earlier : listed) {
        if (earlier.storedName().equals(failure.storedName())) {
          throw new IllegalArgumentException("replayOn lists " + failure.storedName() + " twice");
        }
      }
      listed.add(failure);
    }
    return List.copyOf(listed);
  }

  /**
   * The shape of specs built without one (hand-written, or generated before the processor computed shapes): the
   * result type's name, hashed to fit the column. It catches a changed result type, not a changed field.
   */
  static String defaultResultShape(ResultType<?> resultType) {
    return "type:" + Fingerprinter.sha256Hex(resultType.type().getTypeName()).substring(0, 40);
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

  /** @return how the key is claimed relative to the body's work */
  public Mode mode() {
    return mode;
  }

  /** @return ({@link Mode#CLAIM}) how long an in-flight claim holds before another caller may take it over */
  public Duration lease() {
    return lease;
  }

  long leaseMillis() {
    return leaseMillis;
  }

  /** @return ({@link Mode#CLAIM}) what a caller does while another one holds the key */
  public InFlight onInFlight() {
    return onInFlight;
  }

  /** @return ({@link Mode#CLAIM}) what a lease that ended before its owner recorded an outcome means */
  public ExpiredLease onExpiredLease() {
    return onExpiredLease;
  }

  /** @return ({@link Mode#CLAIM}) what a body's exception not listed in replayOn does to the key */
  public UndeclaredFailure onUndeclaredFailure() {
    return onUndeclaredFailure;
  }

  /** @return ({@link Mode#CLAIM}, {@link InFlight#WAIT}) how long to wait for the other caller's result */
  public Duration waitTimeout() {
    return waitTimeout;
  }

  /** @return the exception types that are stored and replayed like results */
  public List<ReplayableFailure<?>> replayOn() {
    return replayOn;
  }

  /**
   * @return the shape of the result stored with each record and checked on replay: computed by the processor from
   *     the result type's structure, else {@link #defaultResultShape derived from its name}
   */
  public String resultShape() {
    return resultShape;
  }

  /** @return the method that declares this command, e.g. {@code com.acme.Payments#pay}, or null if not given */
  public String declaredBy() {
    return declaredBy;
  }

  /**
   * Whether {@code other} is the same command: same declaring method (when both name it), result type and shape,
   * key parts, payload, mode and replayed failures. Two different commands must not share one scope.
   */
  boolean sameCommandAs(CommandSpec<?> other) {
    if (other == this) {
      return true;
    }
    if (declaredBy != null && other.declaredBy != null && !declaredBy.equals(other.declaredBy)) {
      return false;
    }
    return resultType.type().equals(other.resultType.type()) && resultShape.equals(other.resultShape)
        && keyPartNames.equals(other.keyPartNames) && payloadNames.equals(other.payloadNames) && mode == other.mode
        && store == other.store && derivedKey == other.derivedKey
        && replayOn.stream().map(ReplayableFailure::storedName).toList()
            .equals(other.replayOn.stream().map(ReplayableFailure::storedName).toList());
  }

  /** @return what {@link #sameCommandAs} compares, for error messages */
  String identity() {
    return identity;
  }

  /**
   * The replayable type {@code failure} is an instance of exactly, or null if it is not a business outcome of this
   * command. A subclass of a listed type that is not listed itself is no outcome: idem can re-create only the listed
   * classes, and replaying a {@code StolenCardException} as the {@code CardDeclinedException} it extends would hand
   * retries another type than the first call got. Such a failure rolls back like any other, and a retry runs again.
   */
  ReplayableFailure<?> replayableFor(Throwable failure) {
    for (ReplayableFailure<?> candidate : replayOn) {
      if (candidate.type() == failure.getClass()) {
        return candidate;
      }
    }
    return null;
  }

  /** The replayable type stored under {@code storedName}, or null if it is no longer listed. */
  ReplayableFailure<?> replayableNamed(String storedName) {
    for (ReplayableFailure<?> candidate : replayOn) {
      if (candidate.storedName().equals(storedName)) {
        return candidate;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "CommandSpec[" + scope + ", " + resultType + ", retention " + retention + ", key "
        + keyPartNames + ", payload " + payloadNames + ", " + mode
        + (mode == Mode.CLAIM ? " lease " + lease + " " + onInFlight + " wait " + waitTimeout : "")
        + (replayOn.isEmpty() ? "" : ", replayOn " + replayOn) + ", shape " + resultShape
        + (declaredBy == null ? "" : ", declared by " + declaredBy)
        + (store == Store.DATABASE ? "" : ", store " + store) + "]";
  }

  /**
   * Builds a {@link CommandSpec}.
   *
   * @param <T> the result type
   */
  public static final class Builder<T> {

    private final String scope;
    private final ResultType<T> resultType;
    private long retentionMillis = DEFAULT_RETENTION_MILLIS;
    private List<String> keyPartNames = List.of();
    private List<String> payloadNames = List.of();
    private Mode mode = Mode.TRANSACTIONAL;
    private long leaseMillis = DEFAULT_LEASE_MILLIS;
    private InFlight onInFlight = InFlight.FAIL;
    private ExpiredLease onExpiredLease = ExpiredLease.TAKE_OVER;
    private UndeclaredFailure onUndeclaredFailure = UndeclaredFailure.RELEASE;
    private long waitTimeoutMillis = DEFAULT_WAIT_TIMEOUT_MILLIS;
    private final List<ReplayableFailure<?>> replayOn = new ArrayList<>(0);
    private String resultShape;
    private String declaredBy;
    private KeyTime keyTime = KeyTime.NONE;
    private Store store = Store.DATABASE;
    private boolean derivedKey;
    private boolean lookupFirst;

    private Builder(String scope, ResultType<T> resultType) {
      this.scope = checkScope(scope);
      this.resultType = Objects.requireNonNull(resultType, "resultType");
    }

    /**
     * How long a result is kept and replayed. Default one day.
     *
     * @param retention a positive duration
     * @return this builder
     */
    public Builder<T> retention(Duration retention) {
      this.retentionMillis = positive(retention, "retention").toMillis();
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

    /**
     * How the key is claimed relative to the body's work. Default {@link Mode#TRANSACTIONAL}.
     *
     * @param mode the mode
     * @return this builder
     */
    public Builder<T> mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * ({@link Mode#CLAIM}) How long an in-flight claim holds before another caller may take it over. Default 30s.
     *
     * @param lease a positive duration
     * @return this builder
     */
    public Builder<T> lease(Duration lease) {
      this.leaseMillis = positive(lease, "lease").toMillis();
      return this;
    }

    /**
     * ({@link Mode#CLAIM}) What a lease that ended before its owner recorded an outcome means. Default
     * {@link ExpiredLease#TAKE_OVER}.
     *
     * @param onExpiredLease take the key over, or park it
     * @return this builder
     */
    public Builder<T> onExpiredLease(ExpiredLease onExpiredLease) {
      this.onExpiredLease = Objects.requireNonNull(onExpiredLease, "onExpiredLease");
      return this;
    }

    /**
     * ({@link Mode#CLAIM}) What a body's exception not listed in replayOn does. Default
     * {@link UndeclaredFailure#RELEASE}.
     *
     * @param onUndeclaredFailure release the key or park it
     * @return this builder
     */
    public Builder<T> onUndeclaredFailure(UndeclaredFailure onUndeclaredFailure) {
      this.onUndeclaredFailure = Objects.requireNonNull(onUndeclaredFailure, "onUndeclaredFailure");
      return this;
    }

    /**
     * ({@link Mode#CLAIM}) What a caller does while another one holds the key. Default {@link InFlight#FAIL}.
     *
     * @param onInFlight fail at once, or wait for the result
     * @return this builder
     */
    public Builder<T> onInFlight(InFlight onInFlight) {
      this.onInFlight = Objects.requireNonNull(onInFlight, "onInFlight");
      return this;
    }

    /**
     * ({@link Mode#CLAIM} with {@link InFlight#WAIT}) How long to wait for the other caller's result. Default 10s.
     *
     * @param waitTimeout a positive duration
     * @return this builder
     */
    public Builder<T> waitTimeout(Duration waitTimeout) {
      this.waitTimeoutMillis = positive(waitTimeout, "waitTimeout").toMillis();
      return this;
    }

    /**
     * Exception types that are business outcomes: stored, and rethrown to every retry.
     *
     * @param failures one description per type, as generated by the processor
     * @return this builder
     */
    public Builder<T> replayOn(ReplayableFailure<?>... failures) {
      List<ReplayableFailure<?>> all = new ArrayList<>(replayOn);
      all.addAll(List.of(failures)); // rejects null
      replayable(all.toArray(ReplayableFailure<?>[]::new)); // rejects a type listed twice
      replayOn.clear();
      replayOn.addAll(all);
      return this;
    }

    /**
     * The shape of the result, computed at compile time from the result type's structure (its properties and their
     * types, recursively), so that a record written with another shape is refused on replay instead of replayed
     * with defaulted values. Default: derived from the result type's name.
     *
     * @param shape 1 to 64 characters, e.g. a hex SHA-256 of the shape's description
     * @return this builder
     */
    public Builder<T> resultShape(String shape) {
      this.resultShape = checkResultShape(Objects.requireNonNull(shape, "shape"));
      return this;
    }

    /**
     * The method that declares the command, so that two commands of different interfaces sharing a scope are told
     * apart at run time.
     *
     * @param method e.g. {@code com.acme.Payments#pay}
     * @return this builder
     */
    public Builder<T> declaredBy(String method) {
      Objects.requireNonNull(method, "method");
      if (method.isEmpty()) {
        throw new IllegalArgumentException("declaredBy must not be empty");
      }
      this.declaredBy = method;
      return this;
    }

    /** @return the immutable spec */
    public CommandSpec<T> build() {
      return new CommandSpec<>(scope, resultType, resultShape, retentionMillis, keyPartNames, payloadNames,
          declaredBy, mode, leaseMillis, onInFlight, waitTimeoutMillis, List.copyOf(replayOn), keyTime,
          onExpiredLease, onUndeclaredFailure, store, derivedKey, lookupFirst);
    }

    /**
     * Whether a call that starts outside any transaction reads the key's record before claiming it, so that a retry
     * of a completed key replays from that one read. Default false.
     *
     * @param lookupFirst true to read first
     * @return this builder
     */
    public Builder<T> lookupFirst(boolean lookupFirst) {
      this.lookupFirst = lookupFirst;
      return this;
    }

    /**
     * Whether the key's first part carries its time. Default {@link KeyTime#NONE}.
     *
     * @param keyTime the format
     * @return this builder
     */
    public Builder<T> keyTime(KeyTime keyTime) {
      this.keyTime = Objects.requireNonNull(keyTime, "keyTime");
      return this;
    }

    /**
     * Where the command's records live. Default {@link Store#DATABASE}.
     *
     * @param store the store
     * @return this builder
     */
    public Builder<T> store(Store store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }
  }
}
