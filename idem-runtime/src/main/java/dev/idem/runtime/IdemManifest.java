package dev.idem.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.runtime.internal.ResultShapes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.stream.Stream;

/**
 * The manifest the processor writes for each service interface, {@code META-INF/idem/<interface>.json}: every
 * command's scope, method, result type and result shape. Operator tools read it to check a result before
 * {@link IdemAdmin#resolve resolving} an {@code OUTCOME_UNKNOWN} record in a process that has not run the command
 * (the CLI, a support tool): a result that does not fit is refused with the property it concerns, instead of becoming
 * a completed record that every retry fails to read ({@link IdempotencyResultShapeException}).
 *
 * <p>Found in an application's jar ({@link #load(Path)}: a plain jar, a Spring Boot jar with its
 * {@code BOOT-INF/classes} and nested jars, a classes directory or one manifest file), or on a class path
 * ({@link #onClassPath(ClassLoader)}, which {@link IdemRuntime#resolve} uses for a command it has not run).
 *
 * @param service the qualified name of the service interface
 * @param source where the manifest was read from (a file, or a jar and its entry), for messages
 * @param commands its commands, in declaration order
 */
public record IdemManifest(String service, String source, List<Command> commands) {

  /** The folder of the class output where the processor writes the manifests. */
  public static final String FOLDER = "META-INF/idem/";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Checks and copies the commands.
   *
   * @param service the qualified name of the service interface
   * @param source where the manifest was read from
   * @param commands its commands
   */
  public IdemManifest {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(source, "source");
    commands = List.copyOf(commands);
  }

  /**
   * One command as its manifest describes it.
   *
   * @param service the qualified name of the service interface
   * @param scope the scope its records are stored under
   * @param method the method's name
   * @param resultType the declared result type, for people ({@code void} for none)
   * @param resultShape the type as idem's codec writes and reads it ({@code void} for none)
   * @param resultShapeHash what the runtime stores with each record and compares on replay
   * @param mode {@code TRANSACTIONAL} or {@code CLAIM}
   * @param retention how long records are kept, ISO-8601
   */
  public record Command(String service, String scope, String method, String resultType, String resultShape,
                        String resultShapeHash, String mode, String retention) {

    /** @return whether the command returns nothing */
    public boolean isVoid() {
      return "void".equals(resultShape);
    }

    /**
     * Checks that a result given as JSON is one this command could have stored: every property of the shape
     * present, none other, values of the right kind (numbers in range, enum constants the shape lists, dates as
     * text, a sealed type's {@code "@type"} one of its subtypes). Stricter than reading it with Jackson: no
     * coercion.
     *
     * @param resultJson the result as JSON ({@code "null"} for a null result), null for a void command
     * @throws IllegalArgumentException naming the property path ({@code result.lines[0].price}) and what is wrong
     */
    public void checkResult(String resultJson) {
      try {
        ResultShapes.check(resultShape, resultJson);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("The result does not fit " + scope + " (returns " + resultType + "): "
            + e.getMessage(), e);
      }
    }
  }

  /**
   * The command of a scope.
   *
   * @param scope the scope
   * @return the command, or empty if this manifest has none with that scope
   */
  public Optional<Command> command(String scope) {
    return commands.stream().filter(command -> command.scope().equals(scope)).findFirst();
  }

  /**
   * The command of a scope among manifests.
   *
   * @param manifests where to look
   * @param scope the scope
   * @return the command, or empty
   * @throws IllegalArgumentException if two manifests name different commands for that scope
   */
  public static Optional<Command> find(Collection<IdemManifest> manifests, String scope) {
    Command found = null;
    String foundIn = null;
    for (IdemManifest manifest : manifests) {
      Optional<Command> command = manifest.command(scope);
      if (command.isPresent()) {
        if (found != null && !found.equals(command.get())) {
          throw new IllegalArgumentException("Two manifests describe the scope " + scope + " differently: "
              + foundIn + " and " + manifest.source());
        }
        found = command.get();
        foundIn = manifest.source();
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * Reads a manifest's JSON.
   *
   * @param json what the processor wrote
   * @param source where it comes from, for messages
   * @return the manifest
   * @throws IllegalArgumentException if it is not a manifest
   */
  public static IdemManifest parse(String json, String source) {
    try {
      JsonNode root = JSON.readTree(json);
      String service = text(root, "service", source);
      JsonNode commands = root == null ? null : root.get("commands");
      if (commands == null || !commands.isArray()) {
        throw new IllegalArgumentException(source + " is not an idem manifest: it has no \"commands\" array");
      }
      List<Command> read = new ArrayList<>();
      for (JsonNode command : commands) {
        read.add(new Command(service, text(command, "scope", source), text(command, "method", source),
            text(command, "resultType", source), text(command, "resultShape", source),
            text(command, "resultShapeHash", source), text(command, "mode", source),
            text(command, "retention", source)));
      }
      return new IdemManifest(service, source, read);
    } catch (IOException e) {
      throw new IllegalArgumentException(source + " is not an idem manifest: " + e.getMessage(), e);
    }
  }

  private static String text(JsonNode node, String member, String source) {
    JsonNode value = node == null ? null : node.get(member);
    if (value == null || !value.isTextual()) {
      throw new IllegalArgumentException(source + " is not an idem manifest: \"" + member + "\" is missing");
    }
    return value.textValue();
  }

  /**
   * The manifests of an application: in a jar (its {@code META-INF/idem/*.json}; in a Spring Boot jar also
   * {@code BOOT-INF/classes/META-INF/idem/*.json} and those of the jars nested in {@code BOOT-INF/lib} and
   * {@code WEB-INF/lib}), in a directory (every {@code *.json} under a {@code META-INF/idem} folder in it, or directly
   * in it), or one manifest file.
   *
   * @param path a jar, a directory or a {@code .json} file
   * @return the manifests found, possibly none
   * @throws IllegalArgumentException if the path does not exist or a manifest cannot be read
   * @throws UncheckedIOException if reading fails
   */
  public static List<IdemManifest> load(Path path) {
    if (!Files.exists(path)) {
      throw new IllegalArgumentException(path + " does not exist");
    }
    try {
      if (Files.isDirectory(path)) {
        return fromDirectory(path);
      }
      if (path.getFileName().toString().endsWith(".json")) {
        return List.of(parse(Files.readString(path, StandardCharsets.UTF_8), path.toString()));
      }
      List<IdemManifest> manifests = new ArrayList<>();
      try (JarFile jar = new JarFile(path.toFile())) {
        for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
          JarEntry entry = entries.nextElement();
          if (isManifest(entry.getName())) {
            try (InputStream in = jar.getInputStream(entry)) {
              manifests.add(parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), path + "!/" + entry));
            }
          } else if (isNestedJar(entry.getName())) {
            try (InputStream in = jar.getInputStream(entry)) {
              fromNestedJar(in, path + "!/" + entry, manifests);
            }
          }
        }
      }
      return manifests;
    } catch (IOException e) {
      throw new UncheckedIOException("Reading manifests from " + path + " failed", e);
    }
  }

  private static List<IdemManifest> fromDirectory(Path directory) throws IOException {
    List<IdemManifest> manifests = new ArrayList<>();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted().toList()) {
        String relative = directory.relativize(file).toString().replace('\\', '/');
        boolean inFolder = isManifest(relative);
        boolean direct = file.getParent().equals(directory) && relative.endsWith(".json");
        if (Files.isRegularFile(file) && (inFolder || direct)) {
          manifests.add(parse(Files.readString(file, StandardCharsets.UTF_8), file.toString()));
        }
      }
    }
    return manifests;
  }

  private static void fromNestedJar(InputStream in, String source, List<IdemManifest> manifests) throws IOException {
    try (JarInputStream nested = new JarInputStream(in)) {
      for (JarEntry entry = nested.getNextJarEntry(); entry != null; entry = nested.getNextJarEntry()) {
        if (isManifest(entry.getName())) {
          byte[] bytes = nested.readAllBytes();
          manifests.add(parse(new String(bytes, StandardCharsets.UTF_8), source + "!/" + entry.getName()));
        }
      }
    }
  }

  private static boolean isManifest(String name) {
    int folder = name.lastIndexOf(FOLDER);
    return name.endsWith(".json") && folder >= 0 && (folder == 0 || name.startsWith("BOOT-INF/classes/")
        || name.startsWith("WEB-INF/classes/")) && name.indexOf('/', folder + FOLDER.length()) < 0;
  }

  private static boolean isNestedJar(String name) {
    return name.endsWith(".jar") && (name.startsWith("BOOT-INF/lib/") || name.startsWith("WEB-INF/lib/"));
  }

  /**
   * The manifests on a class path: every {@code META-INF/idem/*.json} that the class loader's folders and jars hold.
   *
   * @param loader the class loader (the application's)
   * @return the manifests found, possibly none
   * @throws UncheckedIOException if reading fails
   */
  public static List<IdemManifest> onClassPath(ClassLoader loader) {
    Map<String, IdemManifest> manifests = new LinkedHashMap<>();
    try {
      for (Enumeration<URL> folders = loader.getResources(FOLDER.substring(0, FOLDER.length() - 1));
          folders.hasMoreElements(); ) {
        URL folder = folders.nextElement();
        for (IdemManifest manifest : fromFolder(folder)) {
          manifests.putIfAbsent(manifest.source(), manifest);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Reading idem manifests from the class path failed", e);
    }
    return List.copyOf(manifests.values());
  }

  private static List<IdemManifest> fromFolder(URL folder) throws IOException {
    if (folder.getProtocol().equals("file")) {
      try {
        Path directory = Paths.get(folder.toURI());
        List<IdemManifest> manifests = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
          for (Path file : files.sorted().toList()) {
            if (file.getFileName().toString().endsWith(".json") && Files.isRegularFile(file)) {
              manifests.add(parse(Files.readString(file, StandardCharsets.UTF_8), file.toString()));
            }
          }
        }
        return manifests;
      } catch (URISyntaxException e) {
        return List.of();
      }
    }
    URLConnection connection = folder.openConnection();
    if (connection instanceof JarURLConnection jarConnection) {
      jarConnection.setUseCaches(false);
      String prefix = jarConnection.getEntryName() + "/";
      List<IdemManifest> manifests = new ArrayList<>();
      try (JarFile jar = jarConnection.getJarFile()) {
        for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
          JarEntry entry = entries.nextElement();
          String name = entry.getName();
          if (name.startsWith(prefix) && name.endsWith(".json") && name.indexOf('/', prefix.length()) < 0) {
            try (InputStream in = jar.getInputStream(entry)) {
              manifests.add(parse(new String(in.readAllBytes(), StandardCharsets.UTF_8),
                  folder + "/" + name.substring(prefix.length())));
            }
          }
        }
      }
      return manifests;
    }
    return List.of();
  }
}
