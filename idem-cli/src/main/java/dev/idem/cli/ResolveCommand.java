package dev.idem.cli;

import dev.idem.redis.RedisRecordAdmin;
import dev.idem.runtime.IdemAdmin;
import dev.idem.runtime.IdemManifest;
import dev.idem.runtime.IdempotencyRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "resolve", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = {"Settles a record whose outcome is unknown (OUTCOME_UNKNOWN), once you have"
    + " checked the external system:",
    "  --result JSON   the effect happened: complete the record with the result the first execution had, so that"
        + " every retry replays it. The JSON is checked against the command's result type from the application's"
        + " manifest (--app-jar or --manifest) before anything is written.",
    "  --no-result     the same for a command that returns nothing (void).",
    "  --release       the effect did NOT happen: delete the record, so that the next call runs the command again.",
    "Records in any other state are left as they are.",
    "With --redis (a store = Store.REDIS command, whose records have no OUTCOME_UNKNOWN state): settles a stuck"
        + " claim (IN_PROGRESS) the same way, only if it is still the claim of --owner TOKEN (as inspect or inflight"
        + " show it); a compare-and-set in Redis, so a claim its owner completed or released meanwhile is left as"
        + " it is."},
    footer = {"", "@|bold Exit codes|@: 0 resolved/released, 1 no such record, 2 usage (also: no manifest describes the"
        + " scope), 3 database or Redis error, 4 the result does not fit the result type, 5 the record's outcome is"
        + " not unknown (--redis: not a claim of --owner)"})
final class ResolveCommand extends OperatorCommand {

  @Parameters(index = "0", paramLabel = "SCOPE", description = "The command's scope")
  String scope;

  @Parameters(index = "1", paramLabel = "KEY", description = "The composed idempotency key")
  String key;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Outcome outcome;

  static final class Outcome {
    @Option(names = "--result", paramLabel = "JSON",
        description = "The result as JSON, as idem stores it (\"null\" for a null result)")
    String result;

    @Option(names = "--result-file", paramLabel = "FILE", description = "Read the result's JSON from FILE (- for"
        + " standard input)")
    Path resultFile;

    @Option(names = "--no-result", description = "Complete a void command's record")
    boolean noResult;

    @Option(names = "--release", description = "Delete the record (the effect did not happen): the next call runs"
        + " the command again")
    boolean release;
  }

  @Option(names = "--app-jar", paramLabel = "JAR",
      description = "The application's jar (or classes directory): its META-INF/idem/*.json manifests, also inside"
          + " a Spring Boot jar's BOOT-INF/classes and nested jars. Repeatable.")
  List<Path> appJars = new ArrayList<>();

  @Option(names = "--manifest", paramLabel = "FILE",
      description = "A manifest file (META-INF/idem/<service>.json) or a directory of them. Repeatable.")
  List<Path> manifestFiles = new ArrayList<>();

  @Option(names = "--owner", paramLabel = "TOKEN",
      description = "With --redis: the owner token of the stuck claim (inspect shows it); required there")
  String owner;

  @Override
  public Integer call() {
    if (options().onRedis() == (owner == null)) {
      throw new CliException(ExitCodes.USAGE, options().onRedis()
          ? "--redis settles a stuck claim only if it is still its owner's: give --owner TOKEN (inspect shows it)"
          : "--owner is for a Redis-only record (--redis URI); the database's OUTCOME_UNKNOWN records need none");
    }
    if (outcome.release) {
      return release();
    }
    String resultJson = outcome.noResult ? null : outcome.result != null ? outcome.result : readResultFile();
    IdemManifest.Command command = command();
    try {
      command.checkResult(resultJson);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.RESULT_REFUSED, e.getMessage() + ". Nothing was written.", e);
    }
    boolean resolved;
    try {
      if (options().onRedis()) {
        try (RedisRecordAdmin redis = session().openRedisAdmin()) {
          requireClaimOfOwner(redis);
          resolved = redis.resolve(scope, key, owner, resultJson, command);
        }
      } else {
        IdemAdmin admin = session().admin();
        requireOutcomeUnknown(admin);
        resolved = admin.resolve(scope, key, resultJson, command);
      }
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.RESULT_REFUSED, e.getMessage() + ". Nothing was written.", e);
    }
    if (!resolved) {
      throw new CliException(ExitCodes.WRONG_STATE, scope + " key '" + key + "' was no longer "
          + (options().onRedis() ? "the claim of " + owner : "OUTCOME_UNKNOWN") + " when it was to be resolved"
          + " (another operator, its owner, or its expiry); nothing was written");
    }
    if (json()) {
      Map<String, Object> done = new LinkedHashMap<>();
      done.put("resolved", true);
      done.put("scope", scope);
      done.put("key", key);
      done.put("result", resultJson);
      done.put("resultShape", command.isVoid() ? null : command.resultShapeHash());
      Output.json(out(), done);
    } else {
      out().println("Resolved " + scope + " key '" + key + "': COMPLETED with "
          + (resultJson == null ? "no result (void)" : "the result " + resultJson) + "; every retry replays it.");
      out().flush();
    }
    return ExitCodes.OK;
  }

  private int release() {
    if (!appJars.isEmpty() || !manifestFiles.isEmpty()) {
      throw new CliException(ExitCodes.USAGE, "--release deletes the record: it needs no manifest");
    }
    boolean released;
    if (options().onRedis()) {
      try (RedisRecordAdmin redis = session().openRedisAdmin()) {
        requireClaimOfOwner(redis);
        released = redis.release(scope, key, owner);
      }
    } else {
      IdemAdmin admin = session().admin();
      requireOutcomeUnknown(admin);
      released = admin.release(scope, key);
    }
    if (!released) {
      throw new CliException(ExitCodes.WRONG_STATE, scope + " key '" + key + "' was no longer "
          + (options().onRedis() ? "the claim of " + owner : "OUTCOME_UNKNOWN") + " when it was to be released;"
          + " nothing was deleted");
    }
    if (json()) {
      Output.json(out(), Map.of("released", true, "scope", scope, "key", key));
    } else {
      out().println("Released " + scope + " key '" + key + "': the record is deleted, the next call with this key"
          + " runs the command again.");
      out().flush();
    }
    return ExitCodes.OK;
  }

  private void requireOutcomeUnknown(IdemAdmin admin) {
    Optional<IdemAdmin.StoredRecord> stored = admin.read(scope, key);
    if (stored.isEmpty()) {
      throw new CliException(ExitCodes.NOT_FOUND, "No record of " + scope + " key '" + key + "' in "
          + options().table());
    }
    IdempotencyRecord.State state = stored.get().record().state();
    if (state != IdempotencyRecord.State.OUTCOME_UNKNOWN) {
      throw new CliException(ExitCodes.WRONG_STATE, scope + " key '" + key + "' is " + state
          + ", not OUTCOME_UNKNOWN: only a record whose outcome is unknown is resolved or released (forget deletes"
          + " any record); nothing was changed");
    }
  }

  private void requireClaimOfOwner(RedisRecordAdmin redis) {
    Optional<IdemAdmin.StoredRecord> stored;
    try {
      stored = redis.read(scope, key);
    } catch (IllegalStateException notIdems) {
      throw new CliException(ExitCodes.DATABASE, notIdems.getMessage() + "; nothing was changed", notIdems);
    }
    if (stored.isEmpty()) {
      throw new CliException(ExitCodes.NOT_FOUND, "No record of " + scope + " key '" + key + "' in "
          + options().where());
    }
    IdempotencyRecord record = stored.get().record();
    if (record.state() != IdempotencyRecord.State.IN_PROGRESS || !owner.equals(record.ownerToken())) {
      throw new CliException(ExitCodes.WRONG_STATE, scope + " key '" + key + "' is " + record.state()
          + (record.ownerToken() == null ? "" : " (owner " + record.ownerToken() + ")") + ", not a claim of " + owner
          + ": only a stuck claim is resolved or released, by its owner token (forget deletes any record); nothing"
          + " was changed");
    }
  }

  private String readResultFile() {
    try {
      if (outcome.resultFile.toString().equals("-")) {
        InputStream in = System.in;
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      return Files.readString(outcome.resultFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CliException(ExitCodes.USAGE, "Cannot read the result from " + outcome.resultFile + ": " + e, e);
    }
  }

  /** The scope's command from the manifests the options name. */
  private IdemManifest.Command command() {
    if (appJars.isEmpty() && manifestFiles.isEmpty()) {
      throw new CliException(ExitCodes.USAGE, "resolve checks the result against the command's result type: give"
          + " the application's jar (--app-jar JAR) or its manifest (--manifest FILE, from META-INF/idem/ of its"
          + " classes)");
    }
    List<IdemManifest> manifests = new ArrayList<>();
    List<Path> sources = new ArrayList<>(appJars);
    sources.addAll(manifestFiles);
    for (Path source : sources) {
      try {
        manifests.addAll(IdemManifest.load(source));
      } catch (IllegalArgumentException | UncheckedIOException e) {
        throw new CliException(ExitCodes.USAGE, "Cannot read manifests from " + source + ": " + e.getMessage(), e);
      }
    }
    if (manifests.isEmpty()) {
      throw new CliException(ExitCodes.USAGE, "No idem manifest (META-INF/idem/*.json) in " + sources
          + ": is it the application's jar, built with idem's processor?");
    }
    Optional<IdemManifest.Command> command;
    try {
      command = IdemManifest.find(manifests, scope);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
    if (command.isEmpty()) {
      TreeSet<String> scopes = new TreeSet<>();
      manifests.forEach(manifest -> manifest.commands().forEach(known -> scopes.add(known.scope())));
      throw new CliException(ExitCodes.USAGE, "No manifest in " + sources + " describes the scope " + scope
          + " (it describes " + String.join(", ", scopes) + ")");
    }
    return command.get();
  }
}
