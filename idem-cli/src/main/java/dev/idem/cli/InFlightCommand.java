package dev.idem.cli;

import dev.idem.redis.RedisRecordAdmin;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdempotencyRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "inflight", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = {"Lists the claims in flight (running or stuck) of a store = Store.REDIS command, with their owner"
        + " tokens and lease ends: the candidates for resolve --owner. Needs --redis. Reads only (SCAN of the"
        + " scope's keys, on every master of a Cluster; never KEYS).",
    "A claim expires by itself at its lease's end; the database's stuck claims are listed by stats."},
    footer = {"", "@|bold Exit codes|@: 0 listed (also none), 2 usage, 3 Redis error"})
final class InFlightCommand extends OperatorCommand {

  @Parameters(index = "0", paramLabel = "SCOPE", description = "The command's scope")
  String scope;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "The most claims listed;"
      + " default ${DEFAULT-VALUE}")
  int limit;

  @Override
  public Integer call() {
    if (!options().onRedis()) {
      throw new CliException(ExitCodes.USAGE, "inflight lists the claims of Redis-only records: give --redis URI"
          + " (for the database's table, stats lists the claims whose lease ended)");
    }
    if (limit < 1) {
      throw new CliException(ExitCodes.USAGE, "--limit must be positive, got " + limit);
    }
    List<IdemAdmin.StoredRecord> claims;
    try (RedisRecordAdmin redis = session().openRedisAdmin()) {
      claims = redis.inFlight(scope, limit);
    }
    if (json()) {
      List<Map<String, Object>> views = new ArrayList<>();
      claims.forEach(claim -> views.add(RecordView.of(claim)));
      Map<String, Object> listed = new LinkedHashMap<>();
      listed.put("scope", scope);
      listed.put("inFlight", views);
      Output.json(out(), listed);
      return ExitCodes.OK;
    }
    if (claims.isEmpty()) {
      out().println("No claim in flight for " + scope + " in " + options().where() + ".");
      out().flush();
      return ExitCodes.OK;
    }
    List<List<?>> rows = new ArrayList<>();
    for (IdemAdmin.StoredRecord claim : claims) {
      IdempotencyRecord record = claim.record();
      rows.add(List.of(record.key(), record.ownerToken(), Output.iso(record.leaseUntil()), claim.fingerprint()));
    }
    Output.table(out(), List.of("KEY", "OWNER", "LEASE UNTIL", "FINGERPRINT"), rows);
    return ExitCodes.OK;
  }
}
