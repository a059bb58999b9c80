package dev.idem.cli;

import dev.idem.runtime.IdempotencyStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "stats", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = "Counts the table: records per scope and state (and how many expired), the"
    + " oldest and newest record, IN_PROGRESS claims whose lease ended (a caller died or hangs), every OUTCOME_UNKNOWN"
    + " key (each needs an operator: resolve). Reads only.",
    footer = {"", "@|bold Exit codes|@: 0 done, 2 usage, 3 database error"})
final class StatsCommand extends OperatorCommand {

  @Option(names = "--limit", paramLabel = "KEYS", defaultValue = "1000",
      description = "The most keys listed per list (default: ${DEFAULT-VALUE}); the counts are always complete")
  int limit;

  @Override
  public Integer call() {
    if (limit < 1) {
      throw new CliException(ExitCodes.USAGE, "--limit must be positive, got " + limit);
    }
    IdempotencyStats stats = session().admin().stats(limit);
    if (json()) {
      Output.json(out(), toJson(stats));
      return ExitCodes.OK;
    }
    out().println("Table " + stats.table() + " at " + stats.measuredAt() + " (database time): " + stats.total()
        + " record" + (stats.total() == 1 ? "" : "s") + (stats.total() == 0 ? "" : ", oldest " + stats.oldest()
        + ", newest " + stats.newest()));
    if (!stats.groups().isEmpty()) {
      out().println();
      List<List<?>> rows = new ArrayList<>();
      for (IdempotencyStats.Group group : stats.groups()) {
        rows.add(List.of(group.scope(), group.state(), group.count(), group.expired(), group.oldest(),
            group.newest()));
      }
      Output.table(out(), List.of("SCOPE", "STATE", "COUNT", "EXPIRED", "OLDEST", "NEWEST"), rows);
    }
    out().println();
    out().println("IN_PROGRESS with an ended lease: " + stats.expiredLeases().size());
    if (!stats.expiredLeases().isEmpty()) {
      List<List<?>> rows = new ArrayList<>();
      for (IdempotencyStats.Key key : stats.expiredLeases()) {
        rows.add(List.of(key.scope(), key.key(), key.leaseUntil(), key.createdAt(), key.ownerToken()));
      }
      Output.table(out(), List.of("SCOPE", "KEY", "LEASE ENDED", "CREATED", "OWNER"), rows);
    }
    out().println();
    out().println("OUTCOME_UNKNOWN (resolve each): " + stats.outcomeUnknown().size());
    if (!stats.outcomeUnknown().isEmpty()) {
      List<List<?>> rows = new ArrayList<>();
      for (IdempotencyStats.Key key : stats.outcomeUnknown()) {
        rows.add(List.of(key.scope(), key.key(), key.createdAt(), Output.abbreviate(key.problem(), 100)));
      }
      Output.table(out(), List.of("SCOPE", "KEY", "CREATED", "PROBLEM (inspect shows all)"), rows);
    }
    if (stats.truncated()) {
      out().println();
      out().println("(lists cut at " + limit + " keys: raise --limit to see all)");
    }
    out().flush();
    return ExitCodes.OK;
  }

  private static Map<String, Object> toJson(IdempotencyStats stats) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("table", stats.table());
    json.put("measuredAt", Output.iso(stats.measuredAt()));
    json.put("total", stats.total());
    json.put("oldest", Output.iso(stats.oldest()));
    json.put("newest", Output.iso(stats.newest()));
    List<Map<String, Object>> groups = new ArrayList<>();
    for (IdempotencyStats.Group group : stats.groups()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("scope", group.scope());
      row.put("state", group.state());
      row.put("count", group.count());
      row.put("expired", group.expired());
      row.put("oldest", Output.iso(group.oldest()));
      row.put("newest", Output.iso(group.newest()));
      groups.add(row);
    }
    json.put("groups", groups);
    json.put("expiredLeases", keys(stats.expiredLeases()));
    json.put("outcomeUnknown", keys(stats.outcomeUnknown()));
    json.put("truncated", stats.truncated());
    return json;
  }

  private static List<Map<String, Object>> keys(List<IdempotencyStats.Key> keys) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (IdempotencyStats.Key key : keys) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("scope", key.scope());
      row.put("key", key.key());
      row.put("owner", key.ownerToken());
      row.put("createdAt", Output.iso(key.createdAt()));
      row.put("leaseUntil", Output.iso(key.leaseUntil()));
      row.put("problem", key.problem());
      rows.add(row);
    }
    return rows;
  }
}
