package dev.idem.cli;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.RecordPartition;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "partitions", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = "The day partitions of a table laid out as RecordLayout.DAY_PARTITIONS (PostgreSQL, MariaDB):"
    + " lists them; with --premake creates yesterday's, today's and the next 7 days' that are missing; with --drop detaches and"
    + " drops (or, with --archive-to, moves to that schema) every past day whose records are all past their archive"
    + " horizon. Safe while traffic runs and while another node maintains the table (it then skips).",
    footer = {"", "@|bold Exit codes|@: 0 done, 2 usage (also: the table is not day-partitioned), 3 database error"
        + " (days created or dropped before it stay so)"})
final class PartitionsCommand extends OperatorCommand {

  @Option(names = "--premake", description = "Create the missing days from yesterday to a week ahead")
  boolean premake;

  @Option(names = "--drop", description = "Drop (or archive) the past days whose records are all past their horizon")
  boolean drop;

  @Option(names = "--archive-to", paramLabel = "SCHEMA",
      description = "With --drop: move past days to this schema instead of dropping them")
  String archiveTo;

  @Option(names = "--keep-after-window", paramLabel = "DURATION", defaultValue = "PT0S",
      description = "With --drop: how long records stay after their dedup window, ISO-8601 (default: ${DEFAULT-VALUE},"
          + " the runtimes' keepAfterDedupWindow)")
  String keepAfterWindow;

  @Override
  public Integer call() {
    if (archiveTo != null && !drop) {
      throw new CliException(ExitCodes.USAGE, "--archive-to needs --drop");
    }
    Duration keep;
    try {
      keep = Duration.parse(keepAfterWindow);
    } catch (DateTimeParseException e) {
      throw new CliException(ExitCodes.USAGE, "--keep-after-window needs an ISO-8601 duration such as P14D, got "
          + keepAfterWindow);
    }
    try (IdemRuntime runtime = session().dayPartitioned(keep, archiveTo)) {
      Map<String, Object> done = new LinkedHashMap<>();
      List<String> created = premake ? runtime.premakePartitions() : List.of();
      long removed = drop ? runtime.purgeExpired(1) : 0;
      List<RecordPartition> partitions = runtime.partitions();
      if (json()) {
        done.put("table", options().table());
        done.put("created", created);
        done.put(archiveTo == null ? "droppedRecords" : "archivedRecords", removed);
        List<Map<String, Object>> listed = new ArrayList<>();
        for (RecordPartition partition : partitions) {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("name", partition.name());
          row.put("day", partition.day().toString());
          row.put("from", partition.from().toString());
          row.put("until", partition.until().toString());
          listed.add(row);
        }
        done.put("partitions", listed);
        Output.json(out(), done);
        return ExitCodes.OK;
      }
      if (premake) {
        out().println("Created " + created.size() + " partition" + (created.size() == 1 ? "" : "s")
            + (created.isEmpty() ? "." : ": " + String.join(", ", created)));
      }
      if (drop) {
        // The database's estimate from its statistics: idem never reads a day it removes to count it.
        out().println((archiveTo == null ? "Dropped" : "Archived to " + archiveTo) + " the past days holding about "
            + removed + " record" + (removed == 1 ? "" : "s") + " (the database's estimate).");
      }
      List<List<?>> rows = new ArrayList<>();
      for (RecordPartition partition : partitions) {
        rows.add(List.of(partition.name(), partition.day(), partition.from(), partition.until()));
      }
      Output.table(out(), List.of("partition", "day", "from", "until"), rows);
      out().flush();
      return ExitCodes.OK;
    } catch (IllegalStateException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
  }
}
