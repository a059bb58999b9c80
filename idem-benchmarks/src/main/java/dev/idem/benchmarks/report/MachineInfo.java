package dev.idem.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** What the report says about the machine, read from the JVM and /proc (Linux); "unknown" elsewhere. */
public final class MachineInfo {

  private MachineInfo() {}

  public static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  public static String memory() {
    return line(Path.of("/proc/meminfo"), "MemTotal:")
        .map(l -> l.replaceAll("\\D+", ""))
        .map(kb -> String.format("%.1f GiB", Long.parseLong(kb) / 1024.0 / 1024.0))
        .orElse("unknown");
  }

  public static String cpuModel() {
    return line(Path.of("/proc/cpuinfo"), "model name").map(l -> l.substring(l.indexOf(':') + 1).strip())
        .orElse(System.getProperty("os.arch"));
  }

  public static String operatingSystem() {
    String distribution = line(Path.of("/etc/os-release"), "PRETTY_NAME=")
        .map(l -> l.substring("PRETTY_NAME=".length()).replace("\"", "")).orElse("");
    return (distribution + " " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch")).strip();
  }

  public static String jvm() {
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
        + System.getProperty("java.vm.vendor") + ")";
  }

  /** @return the 1, 5 and 15 minute load averages, the sign of other work on the machine */
  public static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** @return the one-minute load average, or -1 */
  public static double oneMinuteLoad() {
    try {
      return Double.parseDouble(loadAverage().split(" ")[0]);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private static Optional<String> line(Path file, String prefix) {
    try {
      List<String> lines = Files.readAllLines(file);
      return lines.stream().filter(l -> l.startsWith(prefix)).findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
