package dev.idem.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the CLI in-process or as its jar in a child JVM, and what it printed and returned. */
final class Cli {

  /** What a run printed and returned. */
  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private Cli() {}

  static Run inProcess(Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = IdemCli.getCommandLine(new PrintWriter(out), new PrintWriter(err), environment).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  /** The built jar, as failsafe names it (idem.cli.jar). */
  static Path jar() {
    String jar = System.getProperty("idem.cli.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("The CLI's jar is not built (idem.cli.jar=" + jar + "): run mvn verify");
    }
    return Path.of(jar);
  }

  /** {@code java -jar idem-cli-<version>.jar args}, with only the given IDEM_* variables set. */
  static Run jar(Map<String, String> environment, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A short-lived JVM: C1 only and the serial collector halve its start-up (each run is a new JVM).
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(name -> name.startsWith("IDEM_"));
    builder.environment().putAll(environment);
    try {
      File out = File.createTempFile("idem-cli", ".out");
      File err = File.createTempFile("idem-cli", ".err");
      try {
        Process process = builder.redirectOutput(out).redirectError(err).start();
        process.getOutputStream().close();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new AssertionError("idem-cli " + String.join(" ", args) + " did not end within 120 s");
        }
        return new Run(process.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8),
            Files.readString(err.toPath(), StandardCharsets.UTF_8));
      } finally {
        out.delete();
        err.delete();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
