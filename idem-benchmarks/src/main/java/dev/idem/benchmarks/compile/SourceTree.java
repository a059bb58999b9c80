package dev.idem.benchmarks.compile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the compile benchmark's source tree: {@code interfaces} service interfaces with {@code methods}
 * {@code @IdempotentCommand} methods each, keyed by a request id, with a record payload and a record result,
 * the way the README declares a command; or, with {@code genericResults}, results of generic types
 * ({@code List<Result>}, {@code Optional<Result>}, {@code Map<String, Result>}), whose type arguments must survive
 * erasure in the generated code.
 */
final class SourceTree {

  static final String PACKAGE = "bench.generated";

  private SourceTree() {}

  static List<Path> write(Path root, int interfaces, int methods, boolean genericResults) throws IOException {
    return write(root, interfaces, methods, genericResults, false);
  }

  /**
   * @param withBodies also write, per interface, the implementation of its commands and the code they call
   *     (validation, pricing with BigDecimal, stream pipelines, a small state machine): a module with real code, in
   *     which the commands are a part, as in an application, and not the whole
   */
  static List<Path> write(Path root, int interfaces, int methods, boolean genericResults, boolean withBodies)
      throws IOException {
    Path directory = root.resolve(PACKAGE.replace('.', '/'));
    Files.createDirectories(directory);
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < interfaces; i++) {
      Path file = directory.resolve("Service" + i + ".java");
      Files.writeString(file, serviceSource(i, methods, genericResults));
      files.add(file);
      if (withBodies) {
        Path implementation = directory.resolve("Service" + i + "Impl.java");
        Files.writeString(implementation, implementationSource(i, methods, genericResults));
        files.add(implementation);
        Path support = directory.resolve("Service" + i + "Support.java");
        Files.writeString(support, supportSource(i, methods));
        files.add(support);
      }
    }
    return files;
  }

  /** @return the lines of {@code files}, for the report */
  static long lines(List<Path> files) throws IOException {
    long lines = 0;
    for (Path file : files) {
      try (var stream = Files.lines(file)) {
        lines += stream.count();
      }
    }
    return lines;
  }

  private static String implementationSource(int index, int methods, boolean genericResults) {
    String service = "Service" + index;
    StringBuilder source = new StringBuilder();
    source.append("package ").append(PACKAGE).append(";\n\n")
        .append("import java.util.ArrayList;\nimport java.util.List;\nimport java.util.Map;\n")
        .append("import java.util.Optional;\nimport java.util.TreeMap;\n\n")
        .append("public final class ").append(service).append("Impl implements ").append(service).append(" {\n")
        .append("  private final ").append(service).append("Support support = new ").append(service)
        .append("Support();\n")
        .append("  private final Map<String, Long> sequence = new TreeMap<>();\n\n");
    for (int m = 0; m < methods; m++) {
      String result = "Result" + m;
      int generic = genericResults ? m % 3 : -1;
      source.append("  @Override\n  public ").append(resultType(result, generic)).append(" op").append(m)
          .append("(String requestId, Command").append(m).append(" command) {\n")
          .append("    List<String> problems = support.validate").append(m).append("(command);\n")
          .append("    if (!problems.isEmpty()) {\n")
          .append("      throw new IllegalArgumentException(\"Command").append(m)
          .append(" \" + requestId + \": \" + String.join(\"; \", problems));\n    }\n")
          .append("    long total = support.price").append(m).append("(command);\n")
          .append("    long id;\n    synchronized (sequence) {\n")
          .append("      id = sequence.merge(command.customerId(), 1L, Long::sum);\n    }\n")
          .append("    String status = support.status").append(m).append("(command, total);\n")
          .append("    ").append(result).append(" result = new ").append(result)
          .append("(id, status, total);\n");
      switch (generic) {
        case 0 -> source.append("    List<").append(result).append("> results = new ArrayList<>();\n")
            .append("    results.add(result);\n")
            .append("    for (String note : support.notes").append(m).append("(command)) {\n")
            .append("      results.add(new ").append(result).append("(id, note, 0));\n    }\n")
            .append("    return results;\n");
        case 1 -> source.append("    return total > 0 ? Optional.of(result) : Optional.empty();\n");
        case 2 -> source.append("    Map<String, ").append(result).append("> byKey = new TreeMap<>();\n")
            .append("    byKey.put(requestId, result);\n")
            .append("    support.notes").append(m).append("(command).forEach(note -> byKey.put(note, result));\n")
            .append("    return byKey;\n");
        default -> source.append("    return result;\n");
      }
      source.append("  }\n\n");
    }
    return source.append("}\n").toString();
  }

  private static String supportSource(int index, int methods) {
    String service = "Service" + index;
    StringBuilder source = new StringBuilder();
    source.append("package ").append(PACKAGE).append(";\n\n")
        .append("import java.math.BigDecimal;\nimport java.math.RoundingMode;\nimport java.util.ArrayList;\n")
        .append("import java.util.Comparator;\nimport java.util.List;\nimport java.util.Locale;\n")
        .append("import java.util.Map;\nimport java.util.stream.Collectors;\n\n")
        .append("final class ").append(service).append("Support {\n\n")
        .append("  enum Tier { STANDARD, SILVER, GOLD }\n\n")
        .append("  private static final BigDecimal VAT = new BigDecimal(\"0.19\");\n\n");
    for (int m = 0; m < methods; m++) {
      String command = service + ".Command" + m;
      source.append("  List<String> validate").append(m).append("(").append(command).append(" command) {\n")
          .append("    List<String> problems = new ArrayList<>();\n")
          .append("    if (command.customerId() == null || command.customerId().isBlank()) {\n")
          .append("      problems.add(\"customerId is required\");\n    }\n")
          .append("    if (command.sku() == null || !command.sku().matches(\"[A-Z]{3}-[0-9]{4}\")) {\n")
          .append("      problems.add(\"sku must look like ABC-1234, got \" + command.sku());\n    }\n")
          .append("    if (command.quantity() <= 0 || command.quantity() > 1_000) {\n")
          .append("      problems.add(\"quantity must be 1..1000, got \" + command.quantity());\n    }\n")
          .append("    if (command.unitPriceCents() < 0) {\n")
          .append("      problems.add(\"unitPriceCents must not be negative\");\n    }\n")
          .append("    if (command.notes() != null) {\n")
          .append("      command.notes().stream().filter(n -> n.length() > 200)\n")
          .append("          .map(n -> \"note too long: \" + n.substring(0, 20) + \"...\")")
          .append(".forEach(problems::add);\n    }\n")
          .append("    return problems;\n  }\n\n")
          .append("  long price").append(m).append("(").append(command).append(" command) {\n")
          .append("    BigDecimal net = BigDecimal.valueOf(command.unitPriceCents())")
          .append(".multiply(BigDecimal.valueOf(command.quantity()));\n")
          .append("    BigDecimal discount = switch (tier").append(m).append("(command)) {\n")
          .append("      case GOLD -> net.multiply(new BigDecimal(\"0.10\"));\n")
          .append("      case SILVER -> net.multiply(new BigDecimal(\"0.05\"));\n")
          .append("      case STANDARD -> BigDecimal.ZERO;\n    };\n")
          .append("    BigDecimal gross = net.subtract(discount).multiply(BigDecimal.ONE.add(VAT));\n")
          .append("    return gross.setScale(0, RoundingMode.HALF_EVEN).longValueExact();\n  }\n\n")
          .append("  Tier tier").append(m).append("(").append(command).append(" command) {\n")
          .append("    int score = command.customerId().chars().map(c -> c % 7).sum() + command.quantity();\n")
          .append("    if (score > 200) {\n      return Tier.GOLD;\n    }\n")
          .append("    return score > 100 ? Tier.SILVER : Tier.STANDARD;\n  }\n\n")
          .append("  String status").append(m).append("(").append(command).append(" command, long total) {\n")
          .append("    StringBuilder status = new StringBuilder(total > 100_000 ? \"REVIEW\" : \"ACCEPTED\");\n")
          .append("    Map<Boolean, Long> urgent = notes").append(m).append("(command).stream()\n")
          .append("        .collect(Collectors.partitioningBy(n -> n.startsWith(\"urgent\"), ")
          .append("Collectors.counting()));\n")
          .append("    if (urgent.getOrDefault(true, 0L) > 0) {\n")
          .append("      status.append('/').append(\"URGENT\");\n    }\n")
          .append("    return status.toString().toLowerCase(Locale.ROOT);\n  }\n\n")
          .append("  List<String> notes").append(m).append("(").append(command).append(" command) {\n")
          .append("    if (command.notes() == null) {\n      return List.of();\n    }\n")
          .append("    return command.notes().stream().map(String::strip).filter(n -> !n.isEmpty())\n")
          .append("        .sorted(Comparator.comparing(String::length).thenComparing(Comparator.naturalOrder()))\n")
          .append("        .distinct().collect(Collectors.toList());\n  }\n\n");
    }
    return source.append("}\n").toString();
  }

  private static String serviceSource(int index, int methods, boolean genericResults) {
    StringBuilder source = new StringBuilder();
    source.append("package ").append(PACKAGE).append(";\n\n")
        .append("import dev.idem.IdempotencyKey;\n")
        .append("import dev.idem.IdempotentCommand;\n")
        .append("import java.util.List;\n")
        .append("import java.util.Map;\n")
        .append("import java.util.Optional;\n\n")
        .append("public interface Service").append(index).append(" {\n");
    for (int m = 0; m < methods; m++) {
      source.append("  record Command").append(m)
          .append("(String customerId, String sku, int quantity, long unitPriceCents, List<String> notes) {}\n")
          .append("  record Result").append(m).append("(long id, String status, long totalCents) {}\n\n")
          .append("  @IdempotentCommand(scope = \"service").append(index).append(".op").append(m)
          .append("\", retention = \"P1D\")\n")
          .append("  ").append(resultType("Result" + m, genericResults ? m % 3 : -1)).append(" op").append(m)
          .append("(@IdempotencyKey String requestId, Command").append(m).append(" command);\n\n");
    }
    return source.append("}\n").toString();
  }

  private static String resultType(String result, int generic) {
    return switch (generic) {
      case 0 -> "List<" + result + ">";
      case 1 -> "Optional<" + result + ">";
      case 2 -> "Map<String, " + result + ">";
      default -> result;
    };
  }
}
