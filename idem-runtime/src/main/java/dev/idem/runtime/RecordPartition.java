package dev.idem.runtime;

import java.time.Instant;
import java.time.LocalDate;

/**
 * One day partition of a {@link RecordLayout#DAY_PARTITIONS} table, as {@link IdemRuntime#partitions()} lists it.
 *
 * @param name the partition's table name
 * @param day the UTC day (database time) whose first executions it holds
 * @param from the first instant of the day
 * @param until the first instant after it
 */
public record RecordPartition(String name, LocalDate day, Instant from, Instant until) {}
