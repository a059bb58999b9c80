package dev.idem.cli;

import dev.idem.redis.RedisRecordAdmin;
import dev.idem.runtime.IdemAdmin;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "forget", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = {"Deletes one record whatever its state: the next call with the key runs the"
    + " command again.",
    "Only for a record whose effect is known NOT to have happened (OUTCOME_UNKNOWN: prefer resolve --release), an"
        + " IN_PROGRESS claim whose owner is known dead, or a COMPLETED record that should run again. Other"
        + " processes' result caches may replay a forgotten completed record until they evict it.",
    "With --redis: a record of a store = Store.REDIS command (UNLINK of its key)."},
    footer = {"", "@|bold Exit codes|@: 0 deleted, 1 no such record, 2 usage, 3 database or Redis error"})
final class ForgetCommand extends OperatorCommand {

  @Parameters(index = "0", paramLabel = "SCOPE", description = "The command's scope")
  String scope;

  @Parameters(index = "1", paramLabel = "KEY", description = "The composed idempotency key")
  String key;

  @Override
  public Integer call() {
    Optional<IdemAdmin.StoredRecord> before;
    boolean deleted;
    if (options().onRedis()) {
      try (RedisRecordAdmin redis = session().openRedisAdmin()) {
        before = redis.read(scope, key);
        deleted = redis.forget(scope, key);
      } catch (IllegalStateException notIdems) {
        throw new CliException(ExitCodes.DATABASE, notIdems.getMessage() + "; nothing was deleted", notIdems);
      }
    } else {
      IdemAdmin admin = session().admin();
      before = admin.read(scope, key);
      deleted = admin.forget(scope, key);
    }
    if (!deleted) {
      if (json()) {
        Output.json(out(), Map.of("forgotten", false, "scope", scope, "key", key));
      }
      throw new CliException(ExitCodes.NOT_FOUND, "No record of " + scope + " key '" + key + "' in "
          + options().where());
    }
    String state = before.map(stored -> stored.record().state().name()).orElse(null);
    if (json()) {
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("forgotten", true);
      result.put("scope", scope);
      result.put("key", key);
      result.put("previousState", state);
      Output.json(out(), result);
    } else {
      out().println("Forgot " + scope + " key '" + key + "'" + (state == null ? "" : " (it was " + state + ")")
          + ": the next call with this key runs the command again.");
      out().flush();
    }
    return ExitCodes.OK;
  }
}
