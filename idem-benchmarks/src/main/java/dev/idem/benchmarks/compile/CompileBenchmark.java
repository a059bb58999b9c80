package dev.idem.benchmarks.compile;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The processor's cost to a build: the same generated tree compiled in-process by javac with the idem processor
 * and with {@code -proc:none}, alternating, after warm-up. {@code -proc:none} keeps the sources and the
 * annotations identical (the annotation jar is on the class path in both runs), so the difference is exactly
 * what the processor adds: its rounds plus compiling the wrappers it generates, which is what a user's build
 * pays. Stripping the annotations instead would also drop their resolution, a cost that is not the processor's.
 *
 * <p>Two more variants split that difference: {@code -proc:none} over the same sources plus the wrappers generated
 * beforehand shows what compiling the generated code costs, and a processor that does nothing shows what javac's
 * annotation processing costs by itself; the rest is idem's own work (and the extra round its output causes).
 */
public final class CompileBenchmark {

  /** The outcome: wall times in milliseconds per repetition, in run order. */
  public record Result(boolean genericResults, int interfaces, int methodsPerInterface, int warmUps,
      List<Double> withoutProcessorMillis,
      List<Double> withProcessorMillis, List<Double> pregeneratedMillis, List<Double> noOpProcessorMillis,
      int generatedFiles) {

    public double medianPregenerated() {
      return median(pregeneratedMillis);
    }

    public double medianNoOpProcessor() {
      return median(noOpProcessorMillis);
    }

    public double medianWithout() {
      return median(withoutProcessorMillis);
    }

    public double medianWith() {
      return median(withProcessorMillis);
    }

    /** Ratio of each repetition's pair (with / without), the spread of the ratio. */
    public List<Double> pairRatios() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < withProcessorMillis.size(); i++) {
        ratios.add(withProcessorMillis.get(i) / withoutProcessorMillis.get(i));
      }
      return ratios;
    }

    public static double median(List<Double> values) {
      List<Double> sorted = values.stream().sorted().toList();
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
  }

  private static final String IDEM_PROCESSOR = "dev.idem.processor.IdemProcessor";

  private CompileBenchmark() {}

  /**
   * Runs only this benchmark, both variants (record and generic results), and prints their figures; writes no
   * report. Needs the benchmark's class path as {@code java.class.path}, e.g.
   * {@code java -cp idem-benchmarks/target/classes:$(cat cp.txt) dev.idem.benchmarks.compile.CompileBenchmark 2 6}
   * after {@code mvn -Pbench -pl idem-benchmarks -am package dependency:build-classpath -DskipTests
   * -Dmdep.outputFile=cp.txt}.
   *
   * @param args warm-up rounds and measured rounds (default 2 and 6, as in the full suite)
   */
  public static void main(String[] args) throws IOException {
    int warmUps = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    for (boolean genericResults : new boolean[] {false, true}) {
      Result r = run(200, 5, genericResults, warmUps, repetitions);
      System.out.printf("%s results: with %.0f ms, without %.0f ms, pregenerated %.0f ms, no-op processor %.0f ms;"
              + " ratio of medians %.3f, pairs %s%n", genericResults ? "generic" : "record", r.medianWith(),
          r.medianWithout(), r.medianPregenerated(), r.medianNoOpProcessor(), r.medianWith() / r.medianWithout(),
          r.pairRatios().stream().map(x -> String.format("%.2f", x)).toList());
    }
  }

  /**
   * @param genericResults whether the results are generic types ({@code List<R>}, {@code Optional<R>},
   *     {@code Map<String, R>}) rather than records
   */
  public static Result run(int interfaces, int methods, boolean genericResults, int warmUps, int repetitions)
      throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("No system Java compiler: run on a JDK, not a JRE");
    }
    Path root = Files.createTempDirectory("idem-compile-bench");
    try {
      List<Path> sources = SourceTree.write(root.resolve("src"), interfaces, methods, genericResults);
      String classPath = System.getProperty("java.class.path");
      // The wrappers, generated once, for the third variant.
      Path pregeneration = root.resolve("pregeneration");
      compile(javac, sources, classPath, pregeneration, IDEM_PROCESSOR);
      List<Path> withWrappers = new ArrayList<>(sources);
      withWrappers.addAll(javaFiles(pregeneration.resolve("generated")));
      int generated = withWrappers.size() - sources.size();

      List<List<Double>> millis = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      for (int i = 0; i < warmUps + repetitions; i++) {
        // Rotate the order so that no variant always runs on the JIT or GC state another left behind.
        for (int k = 0; k < 4; k++) {
          int variant = (i + k) % 4;
          Path out = root.resolve("out-" + i + "-" + variant);
          double took = switch (variant) {
            case 0 -> compile(javac, sources, classPath, out, null);
            case 1 -> compile(javac, sources, classPath, out, IDEM_PROCESSOR);
            case 2 -> compile(javac, withWrappers, classPath, out, null);
            default -> compile(javac, sources, classPath, out, NoOpProcessor.class.getName());
          };
          if (i >= warmUps) {
            millis.get(variant).add(took);
          }
          delete(out);
        }
      }
      return new Result(genericResults, interfaces, methods, warmUps, millis.get(0), millis.get(1), millis.get(2), millis.get(3),
          generated);
    } finally {
      delete(root);
    }
  }

  /** @param processor the processor's class name, or null for {@code -proc:none} */
  private static double compile(JavaCompiler javac, List<Path> sources, String classPath, Path out,
      String processor) throws IOException {
    Path classes = Files.createDirectories(out.resolve("classes"));
    Path generated = Files.createDirectories(out.resolve("generated"));
    List<String> options = new ArrayList<>(List.of(
        "--release", "17", "-nowarn", "-Xlint:none", "-d", classes.toString(), "-s", generated.toString(),
        "-classpath", classPath, "-implicit:none"));
    if (processor != null) {
      options.addAll(List.of("-processor", processor, "-processorpath", classPath));
    } else {
      options.add("-proc:none");
    }
    StringWriter diagnostics = new StringWriter();
    long start = System.nanoTime();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
      Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
      boolean ok = javac.getTask(diagnostics, files, null, options, null, units).call();
      double millis = (System.nanoTime() - start) / 1e6;
      if (!ok) {
        throw new IllegalStateException("Compilation failed (processor " + processor + "):\n" + diagnostics);
      }
      return millis;
    }
  }

  private static List<Path> javaFiles(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList();
    }
  }

  private static void delete(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
