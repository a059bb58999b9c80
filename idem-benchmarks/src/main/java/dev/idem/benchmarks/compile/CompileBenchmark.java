package dev.idem.benchmarks.compile;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.annotation.processing.Processor;
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
 * <p>Three more variants split that difference: {@code -proc:none} over the same sources plus the wrappers generated
 * beforehand shows what compiling the generated code costs, a processor that does nothing shows what javac's
 * annotation processing costs by itself, and the floor ({@link PregeneratedOutputProcessor}), a processor that
 * writes the same output with no work of its own, shows what that output costs any processor that writes it (the
 * wrappers' compilation, the {@code Filer}'s checks, the extra round in which javac enters every tree again); the
 * processor over the floor is idem's own work.
 *
 * <p>Every variant gets what a user's build has (README "Setup"), not this module's class path: the class path is
 * the annotations and the runtime with its dependencies ({@link #USER_CLASS_PATH}), the processor path is
 * idem-processor and its dependencies ({@link #USER_PROCESSOR_PATH}). A longer class path slows every package
 * lookup, the baseline's included, and so hides part of the processor's share. Each compile's wall time and the
 * calling thread's CPU time are recorded: javac in-process runs on that thread, and its CPU time is much less
 * sensitive than wall time to the other load on a shared machine.
 *
 * <p>Processors are loaded as a user's build loads them: cold, in a fresh class loader over the processor path for
 * each compile, whose parent sees the JDK but not this benchmark's class path ({@link #coldProcessor}). javac
 * itself builds that loader with its own class loader as the parent, which here is the application class loader:
 * it holds idem-processor (a dependency of this module), so parent-first delegation handed javac the copy already
 * loaded and JIT-compiled by the previous compiles, never the cold one a Maven or Gradle build pays for (there,
 * javac's parent loader has only the build tool's own jars). That warm figure stays as a fifth variant, for
 * information only.
 */
public final class CompileBenchmark {

  /** Interfaces of the tree with bodies: 200 commands, each with its implementation and the code it calls. */
  public static final int REAL_CODE_INTERFACES = 40;

  /**
   * The outcome: wall times and the compiling thread's CPU times in milliseconds per repetition, in run order, the
   * jars (file names) on the class path and the processor path that every variant used, and where the sources and
   * javac's output were written.
   */
  public record Result(boolean genericResults, int interfaces, int methodsPerInterface, int warmUps,
      List<Double> withoutProcessorMillis,
      List<Double> withProcessorMillis, List<Double> pregeneratedMillis, List<Double> noOpProcessorMillis,
      int generatedFiles,
      List<Double> withoutProcessorCpuMillis, List<Double> withProcessorCpuMillis,
      List<Double> pregeneratedCpuMillis, List<Double> noOpProcessorCpuMillis,
      List<String> classPath, List<String> processorPath, Output output, boolean withBodies, long sourceLines,
      List<Double> warmProcessorMillis, List<Double> warmProcessorCpuMillis,
      List<Double> floorMillis, List<Double> floorCpuMillis) {

    /**
     * @return the median wall time of the floor: a processor that writes idem's output for this tree, read from
     *     files, with no work of its own ({@link PregeneratedOutputProcessor})
     */
    public double medianFloor() {
      return median(floorMillis);
    }

    /** @return the median CPU time of the floor ({@link #medianFloor()}) */
    public double medianFloorCpu() {
      return median(floorCpuMillis);
    }

    /** @return the wall time the floor adds per command, medians, in milliseconds: what idem's output costs javac */
    public double floorAddedMillisPerCommand() {
      return (medianFloor() - medianWithout()) / commands();
    }

    /** Ratio of each repetition's pair (floor / without). */
    public List<Double> floorPairRatios() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < floorMillis.size(); i++) {
        ratios.add(floorMillis.get(i) / withoutProcessorMillis.get(i));
      }
      return ratios;
    }

    /** @return the median wall time of idem's processor loaded warm from this JVM (information only) */
    public double medianWarmProcessor() {
      return median(warmProcessorMillis);
    }

    /** @return the median CPU time of idem's processor loaded warm from this JVM (information only) */
    public double medianWarmProcessorCpu() {
      return median(warmProcessorCpuMillis);
    }

    /** @return the CPU time the processor adds per command, medians, in milliseconds */
    public double addedCpuMillisPerCommand() {
      return (medianWithCpu() - medianWithoutCpu()) / commands();
    }

    /** @return the commands in the tree */
    public int commands() {
      return interfaces * methodsPerInterface;
    }

    /** @return the wall time the processor adds per command, medians, in milliseconds */
    public double addedMillisPerCommand() {
      return (medianWith() - medianWithout()) / commands();
    }

    public double medianWithoutCpu() {
      return median(withoutProcessorCpuMillis);
    }

    public double medianWithCpu() {
      return median(withProcessorCpuMillis);
    }

    public double medianPregeneratedCpu() {
      return median(pregeneratedCpuMillis);
    }

    public double medianNoOpProcessorCpu() {
      return median(noOpProcessorCpuMillis);
    }

    /** Ratio of each repetition's pair of CPU times (with / without). */
    public List<Double> pairCpuRatios() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < withProcessorCpuMillis.size(); i++) {
        ratios.add(withProcessorCpuMillis.get(i) / withoutProcessorCpuMillis.get(i));
      }
      return ratios;
    }

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

  /**
   * Where a run writes its sources, class files and generated files: a directory and the file system it is on (type
   * and mount point, from {@code /proc/mounts}).
   *
   * <p>Why it matters: on this workplace's disk (ext4), profiling the compile showed most of its time in the
   * kernel creating files (the inode allocator's {@code find_inode_bit}), milliseconds per class file, which
   * swamps javac's own work and makes every ratio against it look small. The target is judged in memory
   * ({@link #memory()}), where the compile is javac's and the processor's CPU work; the disk run is reported
   * beside it, since it is what a build on this machine pays.
   */
  public record Output(Path parent, String fileSystem, String mountPoint) {

    /** A fresh directory under {@code /dev/shm} (tmpfs) where it is writable; else the disk's temp directory. */
    public static Output memory() {
      Path shm = Path.of("/dev/shm");
      return Files.isDirectory(shm) && Files.isWritable(shm) ? of(shm) : disk();
    }

    /** The JVM's temp directory ({@code java.io.tmpdir}), on the disk as a build's target directory is. */
    public static Output disk() {
      return of(Path.of(System.getProperty("java.io.tmpdir")));
    }

    static Output of(Path parent) {
      Path real;
      try {
        real = parent.toRealPath();
      } catch (IOException e) {
        real = parent.toAbsolutePath();
      }
      String bestType = "unknown";
      String bestMount = "/";
      try {
        for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
          String[] fields = line.split(" ");
          if (fields.length > 2 && real.startsWith(fields[1]) && fields[1].length() >= bestMount.length()) {
            bestMount = fields[1];
            bestType = fields[2];
          }
        }
      } catch (IOException e) {
        // Not Linux: the type stays unknown.
      }
      return new Output(real, bestType, bestMount);
    }

    /** E.g. "tmpfs (/dev/shm)". */
    public String describe() {
      return fileSystem + " (" + parent + ")";
    }

    public boolean inMemory() {
      return fileSystem.equals("tmpfs") || fileSystem.equals("ramfs");
    }
  }

  /**
   * What a user's build puts on javac's class path (README "Setup"): the annotations and the runtime with its own
   * dependencies (Jackson). Their own code is the source tree.
   */
  static final List<String> USER_CLASS_PATH = List.of("idem-annotations", "idem-runtime", "jackson-databind",
      "jackson-annotations", "jackson-core", "jackson-datatype-jdk8", "jackson-datatype-jsr310",
      "jackson-module-parameter-names");

  /** What Maven's annotationProcessorPaths resolves for idem-processor: the processor and its runtime dependencies. */
  static final List<String> USER_PROCESSOR_PATH = List.of("idem-processor", "idem-annotations", "javapoet",
      "jakarta.persistence-api");

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private CompileBenchmark() {}

  /**
   * Runs only this benchmark, both variants (record and generic results), and prints their figures; writes no
   * report. Needs the benchmark's class path as {@code java.class.path}, e.g.
   * {@code java -cp idem-benchmarks/target/classes:$(cat cp.txt) dev.idem.benchmarks.compile.CompileBenchmark 2 6}
   * after {@code mvn -Pbench -pl idem-benchmarks -am package dependency:build-classpath -DskipTests
   * -Dmdep.outputFile=cp.txt}.
   *
   * @param args warm-up rounds and measured rounds (default 2 and 6, as in the full suite), and {@code memory} to
   *     leave out the run on the disk (minutes on this machine, and not what the target is judged on)
   */
  public static void main(String[] args) throws IOException {
    int warmUps = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    boolean disk = args.length < 3 || !args[2].equals("memory");
    List<Result> results = new ArrayList<>();
    for (boolean genericResults : new boolean[] {false, true}) {
      results.add(run(200, 5, genericResults, warmUps, repetitions, Output.memory()));
    }
    if (disk) {
      results.add(run(200, 5, false, warmUps, repetitions, Output.disk()));
    }
    results.add(run(REAL_CODE_INTERFACES, 5, false, warmUps, repetitions, Output.memory(), true));
    for (Result r : results) {
      boolean genericResults = r.genericResults();
      System.out.println("Written to " + r.output().describe() + ":");
      System.out.printf("%s results: with %.0f ms, without %.0f ms, pregenerated %.0f ms, no-op processor %.0f ms;"
              + " ratio of medians %.3f, pairs %s%n", genericResults ? "generic" : "record", r.medianWith(),
          r.medianWithout(), r.medianPregenerated(), r.medianNoOpProcessor(), r.medianWith() / r.medianWithout(),
          r.pairRatios().stream().map(x -> String.format("%.2f", x)).toList());
      System.out.printf("%s results, CPU: with %.0f ms, without %.0f ms, pregenerated %.0f ms, no-op processor"
              + " %.0f ms; ratio of medians %.3f, pairs %s%n", genericResults ? "generic" : "record",
          r.medianWithCpu(), r.medianWithoutCpu(), r.medianPregeneratedCpu(), r.medianNoOpProcessorCpu(),
          r.medianWithCpu() / r.medianWithoutCpu(),
          r.pairCpuRatios().stream().map(x -> String.format("%.2f", x)).toList());
      System.out.printf("%s results: added per command %.3f ms wall, %.3f ms CPU (cold processor); warm processor"
              + " (information) %.0f ms wall, %.0f ms CPU%n", genericResults ? "generic" : "record",
          r.addedMillisPerCommand(), r.addedCpuMillisPerCommand(), r.medianWarmProcessor(),
          r.medianWarmProcessorCpu());
      System.out.printf("%s results: the floor (idem's output written with no work) %.0f ms, ratio %.3f, added per"
              + " command %.3f ms wall%n", genericResults ? "generic" : "record", r.medianFloor(),
          r.medianFloor() / r.medianWithout(), r.floorAddedMillisPerCommand());
    }
  }

  /**
   * @param genericResults whether the results are generic types ({@code List<R>}, {@code Optional<R>},
   *     {@code Map<String, R>}) rather than records
   */
  public static Result run(int interfaces, int methods, boolean genericResults, int warmUps, int repetitions)
      throws IOException {
    return run(interfaces, methods, genericResults, warmUps, repetitions, Output.memory());
  }

  /**
   * @param genericResults whether the results are generic types ({@code List<R>}, {@code Optional<R>},
   *     {@code Map<String, R>}) rather than records
   * @param output where the sources and every variant's output are written
   */
  public static Result run(int interfaces, int methods, boolean genericResults, int warmUps, int repetitions,
      Output output) throws IOException {
    return run(interfaces, methods, genericResults, warmUps, repetitions, output, false);
  }

  /**
   * @param withBodies whether the tree also holds the commands' implementations and the code they call (see
   *     {@link SourceTree#write(Path, int, int, boolean, boolean)}): the module with real code of the +35% target
   */
  public static Result run(int interfaces, int methods, boolean genericResults, int warmUps, int repetitions,
      Output output, boolean withBodies) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("No system Java compiler: run on a JDK, not a JRE");
    }
    Path root = Files.createTempDirectory(output.parent(), "idem-compile-bench");
    try {
      List<Path> sources = SourceTree.write(root.resolve("src"), interfaces, methods, genericResults, withBodies);
      long sourceLines = SourceTree.lines(sources);
      List<Path> available = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
          .map(Path::of).toList();
      List<Path> classPathEntries = pick(available, USER_CLASS_PATH);
      List<Path> processorPathEntries = pick(available, USER_PROCESSOR_PATH);
      String classPath = join(classPathEntries);
      String idemProcessorPath = join(processorPathEntries);
      // The no-op processor needs its own class: the same jars plus the benchmark's classes, so that it opens the
      // same processor path as idem does (javac's class loader, ServiceLoader lookups) and only the work differs.
      String noOpProcessorPath = idemProcessorPath + File.pathSeparator + location(NoOpProcessor.class);
      String floorProcessorPath = idemProcessorPath + File.pathSeparator + location(PregeneratedOutputProcessor.class);
      // The wrappers, generated once, for the third variant.
      Path pregeneration = root.resolve("pregeneration");
      compile(javac, sources, classPath, pregeneration, IDEM_PROCESSOR, idemProcessorPath, true, new double[1]);
      List<Path> withWrappers = new ArrayList<>(sources);
      withWrappers.addAll(javaFiles(pregeneration.resolve("generated")));
      int generated = withWrappers.size() - sources.size();
      List<String> floorOptions = List.of(PregeneratedOutputProcessor.DIRECTORY_OPTION + "=" + pregeneration);

      int variants = 6;
      List<List<Double>> millis = new ArrayList<>();
      List<List<Double>> cpuMillis = new ArrayList<>();
      for (int v = 0; v < variants; v++) {
        millis.add(new ArrayList<>());
        cpuMillis.add(new ArrayList<>());
      }
      double[] cpu = new double[1];
      for (int i = 0; i < warmUps + repetitions; i++) {
        // Rotate the order so that no variant always runs on the JIT or GC state another left behind.
        for (int k = 0; k < variants; k++) {
          int variant = (i + k) % variants;
          Path out = root.resolve("out-" + i + "-" + variant);
          double took = switch (variant) {
            case 0 -> compile(javac, sources, classPath, out, null, null, true, cpu);
            case 1 -> compile(javac, sources, classPath, out, IDEM_PROCESSOR, idemProcessorPath, true, cpu);
            case 2 -> compile(javac, withWrappers, classPath, out, null, null, true, cpu);
            case 3 -> compile(javac, sources, classPath, out, NoOpProcessor.class.getName(), noOpProcessorPath,
                true, cpu);
            case 4 -> compile(javac, sources, classPath, out, PregeneratedOutputProcessor.class.getName(),
                floorProcessorPath, true, cpu, floorOptions);
            // Information only: the processor as javac loaded it here before, warm from this JVM's class path.
            default -> compile(javac, sources, classPath, out, IDEM_PROCESSOR, idemProcessorPath, false, cpu);
          };
          if (i >= warmUps) {
            millis.get(variant).add(took);
            cpuMillis.get(variant).add(cpu[0]);
          }
          delete(out);
        }
      }
      return new Result(genericResults, interfaces, methods, warmUps, millis.get(0), millis.get(1), millis.get(2),
          millis.get(3), generated, cpuMillis.get(0), cpuMillis.get(1), cpuMillis.get(2), cpuMillis.get(3),
          fileNames(classPathEntries), fileNames(processorPathEntries), output, withBodies, sourceLines,
          millis.get(5), cpuMillis.get(5), millis.get(4), cpuMillis.get(4));
    } finally {
      delete(root);
    }
  }

  /**
   * The entries of {@code available} that are the named artifacts, a jar ({@code name-version.jar}) or a module's
   * classes directory ({@code name/target/classes}); fails when one is missing, so that no variant silently
   * compiles against a different path.
   */
  static List<Path> pick(List<Path> available, List<String> artifacts) {
    List<Path> picked = new ArrayList<>();
    for (String artifact : artifacts) {
      Path found = available.stream().filter(p -> isArtifact(p, artifact)).findFirst()
          .orElseThrow(() -> new IllegalStateException(artifact + " is not on java.class.path"));
      picked.add(found);
    }
    return picked;
  }

  private static boolean isArtifact(Path entry, String artifact) {
    String name = entry.getFileName().toString();
    if (name.endsWith(".jar")) {
      // name-<version>.jar, and not a longer artifact name that starts the same (jackson-core vs jackson-core-x).
      return name.startsWith(artifact + "-") && Character.isDigit(name.charAt(artifact.length() + 1));
    }
    return entry.endsWith(Path.of(artifact, "target", "classes"));
  }

  static String location(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String join(List<Path> entries) {
    return String.join(File.pathSeparator, entries.stream().map(Path::toString).toList());
  }

  private static List<String> fileNames(List<Path> entries) {
    return entries.stream().map(p -> p.getFileName().toString().endsWith(".jar") ? p.getFileName().toString()
        : p.toString()).toList();
  }

  /**
   * @param processor the processor's class name, or null for {@code -proc:none}
   * @param cold whether the processor comes from a fresh class loader that cannot see this JVM's class path, as in
   *     a user's build ({@link #coldProcessor}); false lets javac's processor path loader find the warm copy that its
   *     parent, this JVM's application class loader, already holds
   * @param cpuMillis receives the compiling thread's CPU time (javac in-process runs on the calling thread) and,
   *     where it has a second element, the whole process's: that adds the JIT compiler's threads, which compile a
   *     cold processor's hot methods anew for every compile, and the garbage collector's
   */
  static double compile(JavaCompiler javac, List<Path> sources, String classPath, Path out,
      String processor, String processorPath, boolean cold, double[] cpuMillis) throws IOException {
    return compile(javac, sources, classPath, out, processor, processorPath, cold, cpuMillis, List.of());
  }

  /** As above, with {@code -A} options for the processor ({@code key=value}). */
  static double compile(JavaCompiler javac, List<Path> sources, String classPath, Path out,
      String processor, String processorPath, boolean cold, double[] cpuMillis, List<String> processorOptions)
      throws IOException {
    Path classes = Files.createDirectories(out.resolve("classes"));
    Path generated = Files.createDirectories(out.resolve("generated"));
    List<String> options = new ArrayList<>(List.of(
        "--release", "17", "-nowarn", "-Xlint:none", "-d", classes.toString(), "-s", generated.toString(),
        "-classpath", classPath, "-implicit:none"));
    for (String option : processorOptions) {
      options.add("-A" + option);
    }
    if (processor == null) {
      options.add("-proc:none");
    } else if (!cold) {
      options.addAll(List.of("-processor", processor, "-processorpath", processorPath));
    }
    StringWriter diagnostics = new StringWriter();
    List<URLClassLoader> opened = new ArrayList<>();
    long start = System.nanoTime();
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long processCpuStart = PROCESS.getProcessCpuTime();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
      Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
      JavaCompiler.CompilationTask task = javac.getTask(diagnostics, files, null, options, null, units);
      if (processor != null && cold) {
        // Inside the timed section: loading the processor is part of what the build pays.
        task.setProcessors(List.of(coldProcessor(processor, processorPath, opened)));
      }
      boolean ok = task.call();
      double millis = (System.nanoTime() - start) / 1e6;
      cpuMillis[0] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e6;
      if (cpuMillis.length > 1) {
        cpuMillis[1] = (PROCESS.getProcessCpuTime() - processCpuStart) / 1e6;
      }
      for (URLClassLoader loader : opened) {
        loader.close();
      }
      if (!ok) {
        throw new IllegalStateException("Compilation failed (processor " + processor + "):\n" + diagnostics);
      }
      return millis;
    }
  }

  /**
   * The processor, loaded as a build tool's javac loads it: by a new class loader over the processor path for this
   * compile alone, whose parent is the platform class loader, which resolves the JDK's modules
   * (javax.annotation.processing, com.sun.source) but none of this JVM's class path. Every class of the processor and
   * its dependencies is then loaded, initialised and interpreted anew, as in a user's build. It is handed to javac
   * instance-ready ({@code setProcessors}) rather than through a wrapping file manager, which javac would then call
   * through its untrusted-code wrapper on every file operation of every variant (a real build's file manager is
   * javac's own).
   */
  static Processor coldProcessor(String className, String processorPath, List<URLClassLoader> opened) {
    List<URL> urls = new ArrayList<>();
    for (String entry : processorPath.split(File.pathSeparator)) {
      try {
        urls.add(Path.of(entry).toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalStateException(e);
      }
    }
    URLClassLoader loader = new URLClassLoader("idem-bench-processor-path", urls.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader());
    opened.add(loader);
    try {
      return (Processor) Class.forName(className, true, loader).getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot load " + className + " from " + processorPath, e);
    }
  }

  static List<Path> javaFiles(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList();
    }
  }

  /** Deletes {@code path} and everything under it, if it exists (the compile tools' scratch directories). */
  static void delete(Path path) throws IOException {
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
