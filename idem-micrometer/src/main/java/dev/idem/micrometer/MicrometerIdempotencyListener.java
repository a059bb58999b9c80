package dev.idem.micrometer;

import dev.idem.runtime.IdempotencyException;
import dev.idem.runtime.IdempotencyInProgressException;
import dev.idem.runtime.IdempotencyKeyReusedException;
import dev.idem.runtime.IdempotencyLeaseLostException;
import dev.idem.runtime.IdempotencyListener;
import dev.idem.runtime.InvalidIdempotencyKeyException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts idem's decisions and times its commands in a Micrometer registry.
 *
 * <ul>
 *   <li>{@value #DECISIONS}{@code {scope, outcome}}: a counter per decision, outcome one of {@code executed} (the
 *       body ran and committed), {@code replayed}, {@code key_reused}, {@code invalid_key}, {@code in_flight}
 *       (CLAIM: another caller held the lease), {@code taken_over} (CLAIM: an ended lease was taken over),
 *       {@code released} (CLAIM: a claim given back after a failure), {@code lease_lost} (CLAIM: this caller's
 *       outcome was discarded), and two an operator must look at: {@code outcome_unknown} (CLAIM: the body's
 *       effects happened but its outcome could not be recorded) and {@code broken_record} (a call met a record that
 *       can be neither replayed nor run again).
 *   <li>{@value #DURATION}{@code {scope, outcome}}: a timer of each call from entry to return, outcome one of
 *       {@code success} (executed or replayed), {@code key_reused}, {@code invalid_key}, {@code in_flight},
 *       {@code lease_lost}, {@code idem_error} (idem's own failure) and {@code failed} (the body threw).
 *   <li>{@value #PARTITIONS}{@code {table, event}}: day partitions of a {@code RecordLayout.DAY_PARTITIONS} table,
 *       event one of {@code created} (ahead of time), {@code dropped}, {@code archived} and {@code failed} (a
 *       maintenance run failed; alert on it: without it, claims fail once the premade days run out).
 *   <li>{@value #PARTITION_RECORDS}{@code {table, event}}: the records the dropped ({@code dropped}) or archived
 *       ({@code archived}) days held, as the database's statistics estimate them (PostgreSQL's {@code n_live_tup} /
 *       {@code reltuples}, MariaDB's {@code TABLE_ROWS}): idem does not read a day it removes to count it.
 *   <li>With a front tier ({@code IdemRuntime.Builder.frontTier}, e.g. idem-redis's, given this listener too), from
 *       its first event on: {@value #FRONT_TIER_LOOKUPS}{@code {scope, result}} with result {@code hit} (replayed
 *       from the tier), {@code miss} (the database decided) or {@code fallback} (the tier could not answer);
 *       {@value #FRONT_TIER_COMMANDS}{@code {operation, outcome}}, a timer of the tier's own commands
 *       ({@code lookup}, {@code publish}, {@code unmark}, {@code forget}, {@code repair}) with outcome
 *       {@code success} or {@code error}; {@value #FRONT_TIER_CIRCUIT}, a gauge that is 1 while the tier's circuit
 *       breaker is open (the tier is not asked), and {@value #FRONT_TIER_CIRCUIT_CHANGES}{@code {state}};
 *       {@value #FRONT_TIER_BLOOM_SKIPPED}{@code {scope}}, the consumer keys its Bloom prefilter kept from a lookup.
 *   <li>With an outbox relay ({@code IdemRuntime.startOutboxRelay}): {@value #OUTBOX_EVENTS}{@code {destination,
 *       outcome}}, outcome {@code sent}, {@code retried} or {@code parked} (alert on it: a parked event waits for an
 *       operator); {@value #OUTBOX_LAG}{@code {destination}}, a timer of each sent event's time from its write to
 *       the claim that published it (how far the relay runs behind); {@value #OUTBOX_CLAIMS_LOST}, events whose
 *       claim another relay took before they were marked (published again: at least once); and
 *       {@value #OUTBOX_RELAY_FAILURES}, relay rounds that failed (database or publisher down).
 * </ul>
 *
 * <p>The idempotency key is never a tag: every request has its own, and a tag per key would grow the registry
 * without bound. Scopes are few and fixed at compile time. Meters are registered on the first call of a scope and
 * looked up with one map read afterwards, without allocating.
 *
 * <pre>{@code
 * IdemRuntime runtime = IdemRuntime.builder()
 *     .dataSource(dataSource)
 *     .listener(new MicrometerIdempotencyListener(meterRegistry))
 *     .build();
 * }</pre>
 */
public final class MicrometerIdempotencyListener implements IdempotencyListener {

  /** The decision counters' name. */
  public static final String DECISIONS = "idem.commands";
  /** The latency timer's name. */
  public static final String DURATION = "idem.command.duration";

  /** The partition maintenance counters' name. */
  public static final String PARTITIONS = "idem.partitions";
  /** The counters of records removed with their day partitions (estimated from the database's statistics). */
  public static final String PARTITION_RECORDS = "idem.partition.records";
  /** The front tier's lookups, by scope and result. */
  public static final String FRONT_TIER_LOOKUPS = "idem.front_tier.lookups";
  /** The front tier's own commands (Redis round trips), by operation and outcome. */
  public static final String FRONT_TIER_COMMANDS = "idem.front_tier.commands";
  /** 1 while the front tier's circuit breaker is open, else 0. */
  public static final String FRONT_TIER_CIRCUIT = "idem.front_tier.circuit.open";
  /** Keys of consumer batches the front tier's Bloom prefilter kept from a tier lookup, by scope. */
  public static final String FRONT_TIER_BLOOM_SKIPPED = "idem.front_tier.bloom.skipped";
  /** How often the front tier's circuit opened and closed, by state. */
  public static final String FRONT_TIER_CIRCUIT_CHANGES = "idem.front_tier.circuit.changes";

  /** Outbox events by destination and outcome. */
  public static final String OUTBOX_EVENTS = "idem.outbox.events";
  /** From an outbox event's write to the claim that published it. */
  public static final String OUTBOX_LAG = "idem.outbox.lag";
  /** Outbox events whose claim was taken by another relay before they were marked. */
  public static final String OUTBOX_CLAIMS_LOST = "idem.outbox.claims.lost";
  /** Outbox relay rounds that failed. */
  public static final String OUTBOX_RELAY_FAILURES = "idem.outbox.relay.failures";

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Counter> outboxEvents = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Timer> outboxLag = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ScopeMeters> scopes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> tierLookups = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Timer> tierCommands = new ConcurrentHashMap<>();
  private final AtomicInteger circuitOpen = new AtomicInteger();
  private final AtomicBoolean circuitGaugeRegistered = new AtomicBoolean();

  /** @param registry where the meters live */
  public MicrometerIdempotencyListener(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public void completed(String scope, String key) {
    meters(scope).executed.increment();
  }

  @Override
  public void replayed(String scope, String key) {
    meters(scope).replayed.increment();
  }

  @Override
  public void keyReused(String scope, String key) {
    meters(scope).keyReused.increment();
  }

  @Override
  public void invalidKey(String scope, String rule) {
    meters(scope).invalidKey.increment();
  }

  @Override
  public void inFlightRejected(String scope, String key) {
    meters(scope).inFlight.increment();
  }

  @Override
  public void takenOver(String scope, String key) {
    meters(scope).takenOver.increment();
  }

  @Override
  public void released(String scope, String key) {
    meters(scope).released.increment();
  }

  @Override
  public void leaseLost(String scope, String key) {
    meters(scope).leaseLost.increment();
  }

  @Override
  public void outcomeUnknown(String scope, String key) {
    meters(scope).outcomeUnknown.increment();
  }

  @Override
  public void brokenRecord(String scope, String key) {
    meters(scope).brokenRecord.increment();
  }

  @Override
  public void frontTierHit(String scope, String key) {
    tierLookup(scope, "hit").increment();
  }

  @Override
  public void frontTierMiss(String scope, String key) {
    tierLookup(scope, "miss").increment();
  }

  @Override
  public void frontTierFallback(String scope, String key) {
    tierLookup(scope, "fallback").increment();
  }

  @Override
  public void frontTierCommand(String operation, Throwable failure, long elapsedNanos) {
    registerCircuitGauge();
    String outcome = failure == null ? "success" : "error";
    Timer timer = tierCommands.get(operation + '|' + outcome);
    if (timer == null) {
      timer = tierCommands.computeIfAbsent(operation + '|' + outcome, k -> Timer.builder(FRONT_TIER_COMMANDS)
          .description("The front tier's own commands (Redis round trips)")
          .tag("operation", operation)
          .tag("outcome", outcome)
          .register(registry));
    }
    timer.record(elapsedNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void frontTierBloomSkipped(String scope, int keys) {
    Counter.builder(FRONT_TIER_BLOOM_SKIPPED)
        .description("Keys of consumer batches the front tier's Bloom prefilter found definitely absent, not looked up")
        .tag("scope", scope)
        .register(registry)
        .increment(keys);
  }

  @Override
  public void frontTierCircuit(boolean open) {
    registerCircuitGauge();
    circuitOpen.set(open ? 1 : 0);
    Counter.builder(FRONT_TIER_CIRCUIT_CHANGES)
        .description("Times the front tier's circuit breaker opened or closed")
        .tag("state", open ? "open" : "closed")
        .register(registry)
        .increment();
  }

  private Counter tierLookup(String scope, String result) {
    registerCircuitGauge();
    String id = scope + '|' + result;
    Counter counter = tierLookups.get(id);
    return counter != null ? counter : tierLookups.computeIfAbsent(id, k -> Counter.builder(FRONT_TIER_LOOKUPS)
        .description("Calls the front tier answered (hit), passed to the database (miss) or could not answer")
        .tag("scope", scope)
        .tag("result", result)
        .register(registry));
  }

  /** Registered with the first front-tier event, so that runtimes without a tier get no such meter. */
  private void registerCircuitGauge() {
    if (!circuitGaugeRegistered.get() && circuitGaugeRegistered.compareAndSet(false, true)) {
      Gauge.builder(FRONT_TIER_CIRCUIT, circuitOpen, AtomicInteger::get)
          .description("1 while the front tier's circuit breaker is open (the tier is not asked)")
          .register(registry);
    }
  }

  @Override
  public void commandFinished(String scope, Throwable failure, long elapsedNanos) {
    ScopeMeters meters = meters(scope);
    Timer timer;
    if (failure == null) {
      timer = meters.succeeded;
    } else if (failure instanceof IdempotencyKeyReusedException) {
      timer = meters.rejectedKeyReused;
    } else if (failure instanceof InvalidIdempotencyKeyException) {
      timer = meters.rejectedInvalidKey;
    } else if (failure instanceof IdempotencyInProgressException) {
      timer = meters.rejectedInFlight;
    } else if (failure instanceof IdempotencyLeaseLostException) {
      timer = meters.lostLease;
    } else if (failure instanceof IdempotencyException) {
      timer = meters.idemError;
    } else {
      timer = meters.failed;
    }
    timer.record(elapsedNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void partitionCreated(String tableName, String partition) {
    partitionCounter(PARTITIONS, tableName, "created").increment();
  }

  @Override
  public void partitionDropped(String tableName, String partition, long records) {
    partitionCounter(PARTITIONS, tableName, "dropped").increment();
    partitionCounter(PARTITION_RECORDS, tableName, "dropped").increment(records);
  }

  @Override
  public void partitionArchived(String tableName, String partition, long records) {
    partitionCounter(PARTITIONS, tableName, "archived").increment();
    partitionCounter(PARTITION_RECORDS, tableName, "archived").increment(records);
  }

  @Override
  public void partitionMaintenanceFailed(String tableName, Throwable failure) {
    partitionCounter(PARTITIONS, tableName, "failed").increment();
  }

  @Override
  public void outboxSent(String destination, long lagMillis) {
    outboxEvent(destination, "sent").increment();
    Timer lag = outboxLag.get(destination);
    if (lag == null) {
      lag = outboxLag.computeIfAbsent(destination, d -> Timer.builder(OUTBOX_LAG).tag("destination", d)
          .register(registry));
    }
    lag.record(Math.max(0, lagMillis), TimeUnit.MILLISECONDS);
  }

  @Override
  public void outboxRetried(String destination, String reason) {
    outboxEvent(destination, "retried").increment();
  }

  @Override
  public void outboxParked(String destination, String reason) {
    outboxEvent(destination, "parked").increment();
  }

  @Override
  public void outboxClaimLost(int events) {
    Counter.builder(OUTBOX_CLAIMS_LOST).register(registry).increment(events);
  }

  @Override
  public void outboxRelayFailed(Throwable failure) {
    Counter.builder(OUTBOX_RELAY_FAILURES).register(registry).increment();
  }

  /** Destinations are few and fixed in the annotations: one counter per destination and outcome. */
  private Counter outboxEvent(String destination, String outcome) {
    String id = destination + '|' + outcome;
    Counter counter = outboxEvents.get(id);
    return counter != null ? counter : outboxEvents.computeIfAbsent(id, k -> Counter.builder(OUTBOX_EVENTS)
        .tag("destination", destination).tag("outcome", outcome).register(registry));
  }

  /** Maintenance events are a few a day: the registry's own lookup is cheap enough. */
  private Counter partitionCounter(String name, String tableName, String event) {
    return Counter.builder(name).tag("table", tableName).tag("event", event).register(registry);
  }

  private ScopeMeters meters(String scope) {
    ScopeMeters meters = scopes.get(scope);
    return meters != null ? meters : scopes.computeIfAbsent(scope, this::register);
  }

  private ScopeMeters register(String scope) {
    return new ScopeMeters(registry, scope);
  }

  /** Every meter of one scope, registered together so that dashboards see zeros rather than gaps. */
  private static final class ScopeMeters {
    final Counter executed;
    final Counter replayed;
    final Counter keyReused;
    final Counter invalidKey;
    final Counter inFlight;
    final Counter takenOver;
    final Counter released;
    final Counter leaseLost;
    final Counter outcomeUnknown;
    final Counter brokenRecord;
    final Timer succeeded;
    final Timer rejectedKeyReused;
    final Timer rejectedInvalidKey;
    final Timer rejectedInFlight;
    final Timer lostLease;
    final Timer idemError;
    final Timer failed;

    ScopeMeters(MeterRegistry registry, String scope) {
      executed = counter(registry, scope, "executed");
      replayed = counter(registry, scope, "replayed");
      keyReused = counter(registry, scope, "key_reused");
      invalidKey = counter(registry, scope, "invalid_key");
      inFlight = counter(registry, scope, "in_flight");
      takenOver = counter(registry, scope, "taken_over");
      released = counter(registry, scope, "released");
      leaseLost = counter(registry, scope, "lease_lost");
      outcomeUnknown = counter(registry, scope, "outcome_unknown");
      brokenRecord = counter(registry, scope, "broken_record");
      succeeded = timer(registry, scope, "success");
      rejectedKeyReused = timer(registry, scope, "key_reused");
      rejectedInvalidKey = timer(registry, scope, "invalid_key");
      rejectedInFlight = timer(registry, scope, "in_flight");
      lostLease = timer(registry, scope, "lease_lost");
      idemError = timer(registry, scope, "idem_error");
      failed = timer(registry, scope, "failed");
    }

    private static Counter counter(MeterRegistry registry, String scope, String outcome) {
      return Counter.builder(DECISIONS)
          .description("Decisions idem took for idempotent commands")
          .tag("scope", scope)
          .tag("outcome", outcome)
          .register(registry);
    }

    private static Timer timer(MeterRegistry registry, String scope, String outcome) {
      return Timer.builder(DURATION)
          .description("Time from a command call's entry to its return, replays included")
          .tag("scope", scope)
          .tag("outcome", outcome)
          .register(registry);
    }
  }
}
