package dev.idem.processor;

import static com.google.common.truth.Truth.assertWithMessage;
import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;

/** Shared set-up for the compile-time tests: the compiler as the build runs it, and diagnostic helpers. */
final class Compilations {

  /**
   * The options of the project's own build (root pom), so that "compiles without warnings" means the same here as
   * in a user's build. {@code -processing} is off because the generated classes carry jakarta.inject annotations
   * (the DI support) that no processor of these tests claims; CompileHygieneTest checks idem's own are claimed.
   */
  static final List<String> OPTIONS = List.of("--release", "17", "-Xlint:all,-processing,-serial", "-parameters");

  /** A strict user build: every lint but the unclaimed-annotation one (see above), and a warning fails it. */
  static final List<String> STRICT = List.of("--release", "17", "-Xlint:all,-processing", "-Werror");

  private Compilations() {}

  /** javac with a fresh {@link IdemProcessor}; the classpath is the test classpath (annotations and runtime). */
  static Compiler idem() {
    return javac().withProcessors(new IdemProcessor(), new IdemProcessorClaims()).withOptions(OPTIONS);
  }

  static Compilation compile(JavaFileObject... sources) {
    return idem().compile(sources);
  }

  /** A compilation together with the files idem asked the Filer for, which is known even when javac failed. */
  record Run(Compilation compilation, List<RecordingProcessor.Created> created) {

    /** The qualified names of the generated {@code _Idempotent} classes. */
    List<String> generatedServices() {
      return created.stream()
          .map(RecordingProcessor.Created::name)
          .filter(name -> name.endsWith("_Idempotent"))
          .collect(Collectors.toList());
    }
  }

  static Run run(JavaFileObject... sources) {
    RecordingProcessor processor = new RecordingProcessor();
    Compilation compilation = javac().withProcessors(processor, new IdemProcessorClaims()).withOptions(OPTIONS)
        .compile(sources);
    return new Run(compilation, processor.created());
  }

  /**
   * The test class path minus the jars whose file names contain one of {@code jarNames}, e.g. a user's build
   * without {@code jakarta.inject}. Surefire's own property lists the entries; {@code java.class.path} may be one
   * manifest-only jar.
   */
  static List<File> classPathWithout(String... jarNames) {
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<File> entries = Arrays.stream(classPath.split(File.pathSeparator))
        .map(File::new)
        .filter(entry -> Arrays.stream(jarNames).noneMatch(name -> entry.getName().contains(name)))
        .collect(Collectors.toList());
    assertWithMessage("class path %s", classPath).that(entries.size()).isGreaterThan(2);
    return entries;
  }

  static JavaFileObject resource(String path) {
    return JavaFileObjects.forResource(path);
  }

  static String contentOf(JavaFileObject file) {
    try {
      return file.getCharContent(true).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The one error that carries the tag, failing if there is none or more than one. */
  static Diagnostic<? extends JavaFileObject> onlyError(Compilation compilation, String tag) {
    List<Diagnostic<? extends JavaFileObject>> tagged = compilation.errors().stream()
        .filter(error -> error.getMessage(null).contains("[" + tag + "]"))
        .collect(Collectors.toList());
    assertWithMessage("errors tagged %s in:\n%s", tag, compilation.diagnostics()).that(tagged).hasSize(1);
    return tagged.get(0);
  }

  /**
   * Asserts that javac's caret for the diagnostic sits on {@code token}: the element's name, the {@code @} of an
   * annotation, or the first character of an annotation value. This is stricter than a line number: a message on
   * the wrong annotation of the same line fails.
   */
  static void assertPointsAt(Diagnostic<? extends JavaFileObject> diagnostic, String token) {
    String source = contentOf(diagnostic.getSource());
    long position = diagnostic.getPosition();
    assertWithMessage("position of %s", diagnostic).that(position).isAtLeast(0L);
    String at = source.substring((int) position, (int) Math.min(source.length(), position + token.length()));
    assertWithMessage("text under the caret of\n%s", diagnostic).that(at).isEqualTo(token);
  }
}
