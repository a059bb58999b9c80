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
    Path directory = root.resolve(PACKAGE.replace('.', '/'));
    Files.createDirectories(directory);
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < interfaces; i++) {
      Path file = directory.resolve("Service" + i + ".java");
      Files.writeString(file, serviceSource(i, methods, genericResults));
      files.add(file);
    }
    return files;
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
