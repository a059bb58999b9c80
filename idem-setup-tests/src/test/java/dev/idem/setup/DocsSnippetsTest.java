package dev.idem.setup;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.idem.setup.DocsFiles.Block;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md and docs/*.md compiles, with idem's processor, against the modules as
 * they are now: a renamed method or a changed constructor breaks this test, not a reader's first build.
 *
 * <p>How a block becomes Java (the convention is also described in docs/README.md, "How the docs are tested"):
 *
 * <ul>
 *   <li>each block gets a package of its own, {@code docs.b<n>}, and compiles in a javac run of its own with
 *       {@code IdemProcessor}, on this test's class path (which holds every module a block may use) and the
 *       prelude's classes (test resources {@code docs-prelude/prelude/*.java}, package {@code docs.prelude});
 *   <li>{@code import} lines at the block's top level apply to the whole block; so do the implied imports
 *       ({@link #IMPLIED_IMPORTS}): the annotations, the runtime API, {@code java.util}, {@code java.time},
 *       {@code java.sql}, {@code javax.sql.DataSource} and the prelude's types ({@code docs.prelude});
 *   <li>type declarations at the block's top level (with the annotations and modifiers before them) become source
 *       files of the block's package; the nested types of the block's own types are imported on demand;
 *   <li>everything else is statements, wrapped in {@code void snippet() throws Exception} of a class extending
 *       {@code docs.prelude.DocsPrelude}, whose fields ({@code runtime}, {@code dataSource}, ...) the statements may
 *       use; a local variable of the same name simply shadows a field, and the block's own types win over the
 *       prelude's (imports on demand never shadow);
 *   <li>{@code <!-- snippet: with A, B -->} on the line before the block adds {@code docs-prelude/with/A.java} and
 *       {@code B.java} (test resources, no package line) to the block's package;
 *   <li>{@code <!-- not compiled: reason -->} on the line before the block leaves it out, visibly: the test prints
 *       each one and the count. Meant for blocks that show a compile error on purpose.
 * </ul>
 *
 * A failure names the Markdown file, the line of the block's line that javac reports, and javac's message.
 */
class DocsSnippetsTest {

  static final List<String> IMPLIED_IMPORTS = List.of(
      "dev.idem.*", "dev.idem.runtime.*", "java.util.*", "java.time.*", "java.sql.*", "javax.sql.DataSource",
      "docs.prelude.*");

  private static final List<String> PRELUDE = List.of(
      "DocsPrelude", "Card", "CardDeclinedException", "Receipt", "PayRequest", "Payments", "NewPayment", "Payment",
      "OrderPaid", "Reserve", "Reserved", "Reservation", "Reservations", "PurchaseOrder",
      "OrderStatus", "PaymentCommands");

  private static final Pattern TYPE_START = Pattern.compile(
      "^(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*"
          + "(?:(?:public|protected|private|abstract|final|sealed|non-sealed|static|strictfp)\\s+)*"
          + "(?:class|interface|enum|record|@interface)\\s+(\\w+).*");

  private static final Pattern ANNOTATION_LINE = Pattern.compile("^@[\\w.]+(?:\\(.*\\))?\\s*$");

  /** A generated source file and, for each of its lines, the Markdown line it came from (0: none). */
  private record Source(String path, String text, int[] markdownLines, Block block) {}

  @Test
  void everyJavaBlockOfTheDocsCompiles(@TempDir Path temp) throws IOException {
    List<Source> prelude = new ArrayList<>();
    for (String name : PRELUDE) {
      String text = resource("docs-prelude/prelude/" + name + ".java");
      prelude.add(new Source("docs/prelude/" + name + ".java", text, new int[0], null));
    }
    List<List<Source>> blocks = new ArrayList<>();
    int compiled = 0;
    List<String> optedOut = new ArrayList<>();
    for (Path file : DocsFiles.markdownFiles()) {
      for (Block block : DocsFiles.blocks(file)) {
        if (!block.language().equals("java")) {
          continue;
        }
        if (block.marker() != null && block.marker().startsWith("not compiled:")) {
          optedOut.add(block.where() + " (" + block.marker() + ")");
          continue;
        }
        compiled++;
        blocks.add(translate(block, "b" + compiled));
      }
    }
    System.out.printf("DocsSnippetsTest: %d Java blocks compiled, %d not compiled%n", compiled, optedOut.size());
    optedOut.forEach(o -> System.out.println("  not compiled: " + o));
    assertTrue(compiled >= 20, "the docs' Java blocks were not found: " + compiled);

    // The prelude once; then each block on its own (as a user's compilation would be: the processor checks, for
    // instance, that no two commands of one compilation share a scope), with the prelude's classes.
    String classPath = System.getProperty("java.class.path");
    Path preludeClasses = temp.resolve("prelude");
    List<String> errors = compile(prelude, classPath, preludeClasses);
    String withPrelude = classPath + java.io.File.pathSeparator + preludeClasses.resolve("classes");
    for (int b = 0; b < blocks.size(); b++) {
      errors.addAll(compile(blocks.get(b), withPrelude, temp.resolve("b" + (b + 1))));
    }
    if (!errors.isEmpty()) {
      fail(errors.size() + " Java block error(s) in the docs:\n" + String.join("\n", errors));
    }
  }

  /** The source files of one block. */
  static List<Source> translate(Block block, String packageName) {
    String pkg = "docs." + packageName;
    List<String> lines = block.lines();
    List<Integer> imports = new ArrayList<>();
    List<List<Integer>> types = new ArrayList<>();
    List<String> typeNames = new ArrayList<>();
    List<Integer> statements = new ArrayList<>();

    Scanner scanner = new Scanner();
    List<Integer> pendingAnnotations = new ArrayList<>();
    List<Integer> currentType = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String trimmed = line.trim();
      boolean topLevel = scanner.depth == 0 && !scanner.inBlockComment;
      if (currentType != null) {
        currentType.add(i);
        scanner.scan(line);
        if (scanner.depth == 0 && scanner.seenBrace) {
          currentType = null;
        }
        continue;
      }
      if (topLevel && trimmed.startsWith("import ")) {
        imports.add(i);
      } else if (topLevel && TYPE_START.matcher(trimmed).matches()) {
        Matcher type = TYPE_START.matcher(trimmed);
        type.matches();
        typeNames.add(type.group(1));
        currentType = new ArrayList<>(pendingAnnotations);
        pendingAnnotations.clear();
        currentType.add(i);
        types.add(currentType);
        scanner.seenBrace = false;
        scanner.scan(line);
        if (scanner.depth == 0 && scanner.seenBrace) {
          currentType = null;
        }
        continue;
      } else if (topLevel && ANNOTATION_LINE.matcher(trimmed).matches()) {
        pendingAnnotations.add(i);
      } else {
        statements.addAll(pendingAnnotations);
        pendingAnnotations.clear();
        statements.add(i);
      }
      scanner.scan(line);
    }
    statements.addAll(pendingAnnotations);

    List<String> withNames = new ArrayList<>();
    if (block.marker() != null && block.marker().startsWith("snippet:")) {
      Matcher with = Pattern.compile("with\\s+([\\w,\\s]+)").matcher(block.marker());
      if (!with.find()) {
        throw new AssertionError(block.where() + ": unknown snippet marker '" + block.marker() + "'");
      }
      for (String name : with.group(1).split(",")) {
        withNames.add(name.trim());
      }
    }
    List<String> ownTypes = new ArrayList<>(typeNames);
    ownTypes.addAll(withNames);

    StringBuilder header = new StringBuilder("package " + pkg + ";\n");
    for (String implied : IMPLIED_IMPORTS) {
      header.append("import ").append(implied).append(";\n");
    }
    List<Integer> headerLines = new ArrayList<>();
    for (int i = 0; i < IMPLIED_IMPORTS.size() + 1; i++) {
      headerLines.add(0);
    }
    for (int i : imports) {
      header.append(lines.get(i)).append('\n');
      headerLines.add(block.markdownLine(i));
    }
    for (String own : ownTypes) {
      header.append("import ").append(pkg).append('.').append(own).append(".*;\n");
      headerLines.add(0);
    }

    List<Source> sources = new ArrayList<>();
    for (int t = 0; t < types.size(); t++) {
      StringBuilder text = new StringBuilder(header);
      List<Integer> map = new ArrayList<>(headerLines);
      for (int i : types.get(t)) {
        text.append(lines.get(i)).append('\n');
        map.add(block.markdownLine(i));
      }
      sources.add(new Source(pkg.replace('.', '/') + "/" + typeNames.get(t) + ".java", text.toString(),
          toArray(map), block));
    }
    for (String name : withNames) {
      String text = header + resource("docs-prelude/with/" + name + ".java");
      sources.add(new Source(pkg.replace('.', '/') + "/" + name + ".java", text, new int[0], block));
    }
    boolean anyStatement = statements.stream().anyMatch(i -> !lines.get(i).isBlank());
    if (anyStatement) {
      StringBuilder text = new StringBuilder(header);
      List<Integer> map = new ArrayList<>(headerLines);
      text.append("class Snippet extends docs.prelude.DocsPrelude {\n  void snippet() throws Exception {\n");
      map.add(0);
      map.add(0);
      for (int i : statements) {
        text.append(lines.get(i)).append('\n');
        map.add(block.markdownLine(i));
      }
      text.append("  }\n}\n");
      sources.add(new Source(pkg.replace('.', '/') + "/Snippet.java", text.toString(), toArray(map), block));
    }
    return sources;
  }

  private static List<String> compile(List<Source> sources, String classPath, Path output) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Map<URI, Source> byUri = new LinkedHashMap<>();
    List<JavaFileObject> files = new ArrayList<>();
    for (Source source : sources) {
      JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + source.path()),
          JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
          return source.text();
        }
      };
      byUri.put(file.toUri(), source);
      files.add(file);
    }
    Path classes = Files.createDirectories(output.resolve("classes"));
    Path generated = Files.createDirectories(output.resolve("generated"));
    String processorPath = System.getProperty("java.class.path");
    List<String> options = List.of(
        "--release", "17", "-parameters", "-implicit:none",
        "-classpath", classPath, "-processorpath", processorPath,
        "-processor", "dev.idem.processor.IdemProcessor,dev.idem.processor.IdemProcessorClaims",
        "-d", classes.toString(), "-s", generated.toString(), "-Xlint:none", "-Xmaxerrs", "1000");
    try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT,
        StandardCharsets.UTF_8)) {
      javac.getTask(null, fileManager, diagnostics, options, null, files).call();
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
      if (diagnostic.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      errors.add(describe(diagnostic, byUri));
    }
    return errors;
  }

  private static String describe(Diagnostic<? extends JavaFileObject> diagnostic, Map<URI, Source> byUri) {
    String message = diagnostic.getMessage(Locale.ROOT);
    JavaFileObject file = diagnostic.getSource();
    if (file == null) {
      return "javac: " + message;
    }
    Source source = byUri.get(file.toUri());
    if (source == null) {
      // A file the processor generated: name the block by its package.
      Matcher pkg = Pattern.compile("docs[/.]b(\\d+)").matcher(file.toUri().toString());
      return (pkg.find() ? "block docs.b" + pkg.group(1) + " (generated " + file.getName() + ")" : file.getName())
          + ": " + message;
    }
    if (source.block() == null) {
      return "prelude " + source.path() + ":" + diagnostic.getLineNumber() + ": " + message;
    }
    int line = (int) diagnostic.getLineNumber();
    int markdownLine = line >= 1 && line <= source.markdownLines().length ? source.markdownLines()[line - 1] : 0;
    String where = DocsFiles.ROOT.relativize(source.block().file()) + ":"
        + (markdownLine > 0 ? markdownLine : source.block().fenceLine() + " (the block; in " + source.path() + ")");
    return where + ": " + message + "\n    " + lineOf(source.text(), line);
  }

  private static String lineOf(String text, int line) {
    String[] lines = text.split("\n", -1);
    return line >= 1 && line <= lines.length ? lines[line - 1].trim() : "";
  }

  private static int[] toArray(List<Integer> list) {
    return list.stream().mapToInt(Integer::intValue).toArray();
  }

  static String resource(String name) {
    try (InputStream in = DocsSnippetsTest.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new AssertionError("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Brace depth across lines, outside string and character literals and comments. */
  static final class Scanner {
    int depth;
    boolean inBlockComment;
    boolean seenBrace;

    void scan(String line) {
      boolean inString = false;
      boolean inChar = false;
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        char next = i + 1 < line.length() ? line.charAt(i + 1) : 0;
        if (inBlockComment) {
          if (c == '*' && next == '/') {
            inBlockComment = false;
            i++;
          }
        } else if (inString) {
          if (c == '\\') {
            i++;
          } else if (c == '"') {
            inString = false;
          }
        } else if (inChar) {
          if (c == '\\') {
            i++;
          } else if (c == '\'') {
            inChar = false;
          }
        } else if (c == '/' && next == '/') {
          return;
        } else if (c == '/' && next == '*') {
          inBlockComment = true;
          i++;
        } else if (c == '"') {
          inString = true;
        } else if (c == '\'') {
          inChar = true;
        } else if (c == '{') {
          depth++;
          seenBrace = true;
        } else if (c == '}') {
          depth--;
        }
      }
    }
  }
}
