package dev.idem.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "purge", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = "Deletes the records whose retention has passed, in batches of at most"
    + " --batch-size rows, each its own short transaction (never waiting for a call in flight); progress on stderr.",
    footer = {"", "@|bold Exit codes|@: 0 done (also when nothing expired), 2 usage, 3 database error (batches"
        + " before it stay deleted)"})
final class PurgeCommand extends OperatorCommand {

  @Option(names = "--batch-size", paramLabel = "ROWS", defaultValue = "1000",
      description = "The most rows one batch deletes (default: ${DEFAULT-VALUE})")
  int batchSize;

  @Override
  public Integer call() {
    if (batchSize < 1) {
      throw new CliException(ExitCodes.USAGE, "--batch-size must be positive, got " + batchSize);
    }
    AtomicLong total = new AtomicLong();
    AtomicLong batches = new AtomicLong();
    long deleted = session().admin().purgeExpired(batchSize, rows -> {
      long sum = total.addAndGet(rows);
      long batch = batches.incrementAndGet();
      if (rows > 0 || batch == 1) { // the last batch of a run that found some is empty: nothing to report
        err().println("purge: batch " + batch + " deleted " + rows + " (" + sum + " so far)");
        err().flush();
      }
    });
    if (json()) {
      Map<String, Object> done = new LinkedHashMap<>();
      done.put("table", options().table());
      done.put("deleted", deleted);
      done.put("batches", batches.get());
      Output.json(out(), done);
    } else {
      out().println("Purged " + deleted + " expired record" + (deleted == 1 ? "" : "s") + " from "
          + options().table() + " in " + batches.get() + " batch" + (batches.get() == 1 ? "" : "es") + ".");
      out().flush();
    }
    return ExitCodes.OK;
  }
}
