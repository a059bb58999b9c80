package dev.idem.benchmarks.compile;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Two builds of idem-processor on the same tree, interleaved: {@code -proc:none}, the baseline jar and this build's
 * processor compile in rotating order, round after round, each processor loaded cold (a fresh class loader per
 * compile, {@link CompileBenchmark#coldProcessor}). On a shared machine whose load drifts by the minute, two
 * separate runs of {@link CompileBenchmark} cannot tell a 10% change from the drift; rounds that interleave can.
 * Reports the added wall time, compiling thread's CPU time and process CPU time (with the JIT compiler's and the
 * garbage collector's threads) per command of each, medians over the rounds.
 *
 * <p>{@code java -cp <benchmark class path> dev.idem.benchmarks.compile.CompileComparison <baseline
 * idem-processor jar> [warm-ups] [rounds] [record|generic|both|real|all]}: {@code both} is the two 1,000-command
 * trees, {@code real} the module with real code ({@link CompileBenchmark#REAL_CODE_INTERFACES} interfaces with the
 * commands' implementations, the +35% target), for which each processor's ratio to {@code -proc:none} is printed
 * too, {@code all} the three. The generated code of both runs against the runtime on the class path, so a baseline
 * works only with a runtime that still has what it calls.
 */
public final class CompileComparison {

  private CompileComparison() {}

  public static void main(String[] args) throws IOException {
    Path baselineJar = Path.of(args[0]);
    int warmUps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    String trees = args.length > 3 ? args[3] : "both";
    if (!trees.equals("real")) {
      for (boolean generic : new boolean[] {false, true}) {
        if (trees.equals(generic ? "record" : "generic")) {
          continue;
        }
        compare(baselineJar, generic, false, warmUps, rounds);
      }
    }
    if (trees.equals("real") || trees.equals("all")) {
      compare(baselineJar, false, true, warmUps, rounds);
    }
  }

  private static void compare(Path baselineJar, boolean genericResults, boolean withBodies, int warmUps, int rounds)
      throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Path root = Files.createTempDirectory(CompileBenchmark.Output.memory().parent(), "idem-compile-compare");
    try {
      int interfaces = withBodies ? CompileBenchmark.REAL_CODE_INTERFACES : 200;
      int methods = 5;
      List<Path> sources = SourceTree.write(root.resolve("src"), interfaces, methods, genericResults, withBodies);
      List<Path> available = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
          .map(Path::of).toList();
      String classPath = String.join(File.pathSeparator,
          CompileBenchmark.pick(available, CompileBenchmark.USER_CLASS_PATH).stream().map(Path::toString).toList());
      List<Path> processorPath = CompileBenchmark.pick(available, CompileBenchmark.USER_PROCESSOR_PATH);
      String current = String.join(File.pathSeparator, processorPath.stream().map(Path::toString).toList());
      List<Path> baselinePath = new ArrayList<>(processorPath);
      baselinePath.set(0, baselineJar);
      String baseline = String.join(File.pathSeparator, baselinePath.stream().map(Path::toString).toList());
      // The floor: a processor that writes what the current processor wrote for this tree, with no work of its own.
      Path pregeneration = root.resolve("pregeneration");
      CompileBenchmark.compile(javac, sources, classPath, pregeneration, "dev.idem.processor.IdemProcessor", current,
          true, new double[1]);
      String floorPath = current + File.pathSeparator + CompileBenchmark.location(PregeneratedOutputProcessor.class);
      List<String> floorOptions = List.of(PregeneratedOutputProcessor.DIRECTORY_OPTION + "=" + pregeneration);
      String[] names = {"-proc:none", "baseline", "current", "floor"};
      int variants = names.length;
      List<List<Double>> wall = new ArrayList<>();
      List<List<Double>> cpu = new ArrayList<>();
      List<List<Double>> processCpu = new ArrayList<>();
      for (int v = 0; v < variants; v++) {
        wall.add(new ArrayList<>());
        cpu.add(new ArrayList<>());
        processCpu.add(new ArrayList<>());
      }
      double[] cpuMillis = new double[2];
      for (int i = 0; i < warmUps + rounds; i++) {
        for (int k = 0; k < variants; k++) {
          int variant = (i + k) % variants;
          Path out = root.resolve("out-" + i + "-" + variant);
          double took = switch (variant) {
            case 0 -> CompileBenchmark.compile(javac, sources, classPath, out, null, null, true, cpuMillis);
            case 1 -> CompileBenchmark.compile(javac, sources, classPath, out, "dev.idem.processor.IdemProcessor",
                baseline, true, cpuMillis);
            case 2 -> CompileBenchmark.compile(javac, sources, classPath, out, "dev.idem.processor.IdemProcessor",
                current, true, cpuMillis);
            default -> CompileBenchmark.compile(javac, sources, classPath, out,
                PregeneratedOutputProcessor.class.getName(), floorPath, true, cpuMillis, floorOptions);
          };
          if (i >= warmUps) {
            wall.get(variant).add(took);
            cpu.get(variant).add(cpuMillis[0]);
            processCpu.get(variant).add(cpuMillis[1]);
          }
          CompileBenchmark.delete(out);
        }
      }
      int commands = interfaces * methods;
      System.out.printf("%s results%s, %d rounds after %d warm-ups, processors loaded cold:%n",
          genericResults ? "generic" : "record", withBodies ? ", module with real code (" + SourceTree.lines(sources)
              + " lines)" : "", rounds, warmUps);
      for (int v = 0; v < variants; v++) {
        double w = CompileBenchmark.Result.median(wall.get(v));
        double c = CompileBenchmark.Result.median(cpu.get(v));
        double p = CompileBenchmark.Result.median(processCpu.get(v));
        System.out.printf("  %-10s wall %5.0f ms  CPU %5.0f ms  process CPU %5.0f ms", names[v], w, c, p);
        if (v > 0) {
          System.out.printf("%n             added per command: wall %.3f ms, CPU %.3f ms, process CPU %.3f ms;"
                  + " per-round added CPU ms/command %s", (w - CompileBenchmark.Result.median(wall.get(0))) / commands,
              (c - CompileBenchmark.Result.median(cpu.get(0))) / commands,
              (p - CompileBenchmark.Result.median(processCpu.get(0))) / commands,
              perRound(cpu.get(v), cpu.get(0), commands));
          if (withBodies) {
            System.out.printf("%n             CPU ratio to -proc:none: medians %.3f, per round %s; wall medians %.3f",
                c / CompileBenchmark.Result.median(cpu.get(0)), ratios(cpu.get(v), cpu.get(0)),
                w / CompileBenchmark.Result.median(wall.get(0)));
          }
        }
        System.out.println();
      }
    } finally {
      CompileBenchmark.delete(root);
    }
  }

  private static List<String> ratios(List<Double> with, List<Double> without) {
    List<String> ratios = new ArrayList<>();
    for (int i = 0; i < with.size(); i++) {
      ratios.add(String.format("%.2f", with.get(i) / without.get(i)));
    }
    return ratios;
  }

  private static List<String> perRound(List<Double> with, List<Double> without, int commands) {
    List<String> added = new ArrayList<>();
    for (int i = 0; i < with.size(); i++) {
      added.add(String.format("%.2f", (with.get(i) - without.get(i)) / commands));
    }
    return added;
  }
}
