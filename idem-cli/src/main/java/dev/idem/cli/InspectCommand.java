package dev.idem.cli;

import dev.idem.redis.RedisRecordAdmin;
import dev.idem.runtime.IdemAdmin;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "inspect", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = "Shows one record: state, times, lease and owner, the stored result or failure"
    + " (or why its outcome is unknown), result shape and payload fingerprint. Reads only. With --redis: a record"
    + " of a store = Store.REDIS command (a claim in flight with its owner token, or a completed outcome).",
    footer = {"", "@|bold Exit codes|@: 0 found, 1 no such record, 2 usage, 3 database or Redis error"})
final class InspectCommand extends OperatorCommand {

  @Parameters(index = "0", paramLabel = "SCOPE", description = "The command's scope, e.g. Payments.charge")
  String scope;

  @Parameters(index = "1", paramLabel = "KEY", description = "The composed idempotency key, as exceptions report it")
  String key;

  @Override
  public Integer call() {
    Optional<IdemAdmin.StoredRecord> stored;
    if (options().onRedis()) {
      try (RedisRecordAdmin redis = session().openRedisAdmin()) {
        stored = redis.read(scope, key);
      } catch (IllegalStateException notIdems) {
        throw new CliException(ExitCodes.DATABASE, notIdems.getMessage(), notIdems);
      }
    } else {
      stored = session().admin().read(scope, key);
    }
    if (stored.isEmpty()) {
      if (json()) {
        Output.json(out(), Map.of("found", false, "scope", scope, "key", key));
      }
      throw new CliException(ExitCodes.NOT_FOUND, "No record of " + scope + " key '" + key + "' in "
          + options().where());
    }
    Map<String, Object> view = RecordView.of(stored.get());
    if (json()) {
      Output.json(out(), view);
    } else {
      Output.properties(out(), RecordView.forPeople(view));
    }
    return ExitCodes.OK;
  }
}
