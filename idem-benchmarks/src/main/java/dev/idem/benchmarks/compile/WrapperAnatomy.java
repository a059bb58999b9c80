package dev.idem.benchmarks.compile;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * What part of the generated wrappers javac spends its time on: the tree's wrappers are generated once, then the
 * sources are compiled with {@code -proc:none} beside copies of the wrappers with one construct taken out each
 * (Javadoc comments, the lambda bodies, the {@code CommandSpec} initialisers, the {@code execute} calls), round
 * after round in rotating order. Each variant's CPU time over the sources alone is what that form of the wrappers
 * costs; the difference to the unchanged wrappers is the share of the construct taken out. The mutilated copies are
 * only compiled, never run. A guide for changing what the processor generates, not a target.
 *
 * <p>{@code java -cp <benchmark class path> dev.idem.benchmarks.compile.WrapperAnatomy [record|generic] [rounds]}
 */
public final class WrapperAnatomy {

  private WrapperAnatomy() {}

  public static void main(String[] args) throws IOException {
    boolean genericResults = args.length > 0 && args[0].equals("generic");
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int warmUps = 2;
    Path root = Files.createTempDirectory(CompileBenchmark.Output.memory().parent(), "idem-wrapper-anatomy");
    try {
      List<Path> sources = SourceTree.write(root.resolve("src"), 200, 5, genericResults, false);
      List<Path> available = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
          .map(Path::of).toList();
      String classPath = String.join(File.pathSeparator,
          CompileBenchmark.pick(available, CompileBenchmark.USER_CLASS_PATH).stream().map(Path::toString).toList());
      String processorPath = String.join(File.pathSeparator,
          CompileBenchmark.pick(available, CompileBenchmark.USER_PROCESSOR_PATH).stream().map(Path::toString)
              .toList());
      JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
      double[] cpu = new double[1];
      Path generation = root.resolve("generation");
      CompileBenchmark.compile(javac, sources, classPath, generation, "dev.idem.processor.IdemProcessor",
          processorPath, true, cpu);
      Path generatedRoot = generation.resolve("generated");
      List<Path> generated = CompileBenchmark.javaFiles(generatedRoot);

      Map<String, UnaryOperator<String>> variants = new LinkedHashMap<>();
      variants.put("sources alone (-proc:none)", null);
      variants.put("+ wrappers as generated", text -> text);
      variants.put("+ wrappers without Javadoc comments", text -> text.replaceAll("(?s)/\\*\\*.*?\\*/", ""));
      variants.put("+ wrappers, each lambda body replaced by null",
          text -> text.replaceAll("\\(\\) -> delegate\\.[^;]*;", "null;"));
      variants.put("+ wrappers, each CommandSpec initialiser replaced by null",
          text -> text.replaceAll("(?s)(private static final CommandSpec<.*?> \\w+) =.*?\\);", "$1 = null;"));
      variants.put("+ wrappers, each execute call replaced by return null",
          text -> text.replaceAll("(?s)return idem\\.<.*?>execute\\(.*?\\);", "return null;"));
      Map<String, List<Path>> trees = new LinkedHashMap<>();
      int v = 0;
      for (Map.Entry<String, UnaryOperator<String>> variant : variants.entrySet()) {
        List<Path> files = new ArrayList<>(sources);
        if (variant.getValue() != null) {
          Path directory = root.resolve("variant-" + v);
          for (Path file : generated) {
            Path copy = directory.resolve(generatedRoot.relativize(file));
            Files.createDirectories(copy.getParent());
            Files.writeString(copy, variant.getValue().apply(Files.readString(file)));
            files.add(copy);
          }
        }
        trees.put(variant.getKey(), files);
        v++;
      }
      List<String> names = new ArrayList<>(trees.keySet());
      Map<String, List<Double>> cpuMillis = new LinkedHashMap<>();
      for (int i = 0; i < warmUps + rounds; i++) {
        for (int k = 0; k < names.size(); k++) {
          String name = names.get((i + k) % names.size());
          Path out = root.resolve("out-" + i + "-" + k);
          CompileBenchmark.compile(javac, trees.get(name), classPath, out, null, null, true, cpu);
          if (i >= warmUps) {
            cpuMillis.computeIfAbsent(name, x -> new ArrayList<>()).add(cpu[0]);
          }
          CompileBenchmark.delete(out);
        }
      }
      double alone = CompileBenchmark.Result.median(cpuMillis.get(names.get(0)));
      double whole = CompileBenchmark.Result.median(cpuMillis.get(names.get(1)));
      System.out.printf("%s results, %d wrappers, median CPU ms of %d rounds:%n",
          genericResults ? "generic" : "record", generated.size(), rounds);
      for (String name : names) {
        double median = CompileBenchmark.Result.median(cpuMillis.get(name));
        System.out.printf("  %-58s %5.0f ms  wrappers %4.0f ms%s%n", name, median, median - alone,
            name.equals(names.get(0)) || name.equals(names.get(1)) ? ""
                : String.format("  (the construct: %.0f ms)", whole - median));
      }
    } finally {
      CompileBenchmark.delete(root);
    }
  }
}
