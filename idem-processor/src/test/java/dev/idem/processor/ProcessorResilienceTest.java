package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;
import static dev.idem.processor.Compilations.assertPointsAt;
import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.onlyError;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import dev.idem.IdempotentCommand;
import java.io.File;
import java.net.URISyntaxException;
import java.util.List;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * The processor in an imperfect compilation: a bug of its own becomes a tagged error instead of a javac crash,
 * types that other processors generate later are waited for, or reported when they never appear, and a missing
 * or mismatched idem runtime is reported on the service instead of breaking the generated file. These cases cover
 * the IDEM-9xx messages.
 */
class ProcessorResilienceTest {

  private static final String GENERATED = "positive/deferred/generated/";

  @Test
  void aFailureOfIdemIsATaggedErrorOnTheInterfaceNotACrash() {
    JavaFileObject file = resource("positive/LocalNames.java");
    // compile-testing rethrows an exception that escapes a processor; the test would fail with it.
    Compilation compilation = javac()
        .withProcessors(new IdemProcessor(service -> {
          throw new IllegalStateException("simulated bug while reading " + service.getSimpleName());
        }), new IdemProcessorClaims())
        .withOptions(Compilations.OPTIONS)
        .compile(file);

    assertThat(compilation).failed();
    assertThat(compilation).hadErrorCount(1);
    assertThat(compilation)
        .hadErrorContaining("[IDEM-900] idem failed while processing com.example.shop.LocalNames:"
            + " java.lang.IllegalStateException: simulated bug while reading LocalNames (at dev.idem.processor.")
        .inFile(file)
        .onLineContaining("public interface LocalNames");
    assertThat(compilation).hadErrorContaining("please report it to the idem project");
    assertPointsAt(onlyError(compilation, "IDEM-900"), "interface");
  }

  /** Each interface names a generated type in another place idem reads; each must wait for the second round. */
  @Test
  void waitsForTypesInSuperInterfacesThrowsClausesAndAnnotationValues() {
    Compilation compilation = javac()
        .withProcessors(new FirstRoundGenerator(GENERATED + "GeneratedQueries.java",
            GENERATED + "GeneratedOutage.java", GENERATED + "GeneratedRejection.java",
            GENERATED + "GeneratedShipment.java"), new IdemProcessor(), new IdemProcessorClaims())
        .withOptions(Compilations.OPTIONS)
        .compile(resource("positive/deferred/Inherits.java"), resource("positive/deferred/Throws.java"),
            resource("positive/deferred/ReplaysOn.java"), resource("positive/deferred/Ships.java"));

    assertThat(compilation).succeededWithoutWarnings();
    // The generated class is final and must implement the generated super-interface's method too.
    assertThat(generated(compilation, "com.example.shop.Inherits_Idempotent"))
        .contains("return delegate.status(parcelId);");
    assertThat(generated(compilation, "com.example.shop.Throws_Idempotent"))
        .contains("public String pack(String parcelId) throws GeneratedOutage {");
    assertThat(generated(compilation, "com.example.shop.ReplaysOn_Idempotent"))
        .contains("ReplayableFailure.<GeneratedRejection>of(GeneratedRejection.class,");
    assertThat(generated(compilation, "com.example.shop.Ships_Idempotent"))
        .contains("\"UPDATE shipments SET status = 'SENT' WHERE id = ? AND status = 'PACKED'\"");
  }

  @Test
  void aClassLiteralThatNeverAppearsIsReportedInTheLastRound() {
    JavaFileObject file = resource("negative/unresolved/NeverGeneratedEntity.java");
    Compilation compilation = Compilations.compile(file);

    assertThat(compilation).failed();
    assertThat(compilation)
        .hadErrorContaining("[IDEM-901] Interface com.example.shop.NeverGeneratedEntity names MissingShipment, a type"
            + " that no source file declares and no annotation processor generated")
        .inFile(file)
        .onLineContaining("@StateTransition(entity = MissingShipment.class");
    assertThat(compilation).hadErrorContaining("add the dependency or annotation processor that provides"
        + " MissingShipment");
    // javac's caret for a class literal is the dot of ".class".
    assertPointsAt(onlyError(compilation, "IDEM-901"), ".class");
  }

  @Test
  void aThrownTypeThatNeverAppearsIsReportedInTheLastRound() {
    JavaFileObject file = resource("negative/unresolved/NeverGeneratedException.java");
    Compilations.Run run = Compilations.run(file);
    Compilation compilation = run.compilation();

    assertThat(compilation).failed();
    assertThat(compilation)
        .hadErrorContaining("[IDEM-901] Interface com.example.shop.NeverGeneratedException names MissingOutage")
        .inFile(file)
        .onLineContaining("throws MissingOutage");
    Diagnostic<? extends JavaFileObject> error = onlyError(compilation, "IDEM-901");
    assertPointsAt(error, "pack");
    assertThat(run.generatedServices()).isEmpty();
  }

  @Test
  void withoutTheRuntimeOnTheClassPathTheServiceGetsATaggedErrorNotABrokenGeneratedFile() {
    JavaFileObject file = resource("negative/runtime/WithoutRuntime.java");
    Compilation compilation = javac()
        .withProcessors(new IdemProcessor())
        .withOptions(Compilations.OPTIONS)
        .withClasspath(List.of(locationOf(IdempotentCommand.class)))
        .compile(file);

    assertThat(compilation).failed();
    // Only idem's error: no "package dev.idem.runtime does not exist" from inside a generated file.
    assertThat(compilation).hadErrorCount(1);
    assertThat(compilation)
        .hadErrorContaining("[IDEM-902] idem cannot generate the implementation of com.example.shop.WithoutRuntime:"
            + " the idem runtime (dev.idem.runtime.internal.IdemEngine) is not on the class path")
        .inFile(file)
        .onLineContaining("public interface WithoutRuntime");
    assertThat(compilation).hadErrorContaining(
        "Add dev.idem:idem-runtime:" + ProcessorVersion.VERSION + " to the dependencies.");
    assertPointsAt(onlyError(compilation, "IDEM-902"), "interface");
  }

  @Test
  void aRuntimeOfAnotherVersionIsATaggedErrorNamingBothVersions() throws URISyntaxException {
    JavaFileObject file = resource("negative/runtime/WithOldRuntime.java");
    File oldRuntime = new File(getClass().getClassLoader().getResource("oldruntime").toURI());
    Compilation compilation = javac()
        .withProcessors(new IdemProcessor())
        .withOptions(Compilations.OPTIONS)
        .withClasspath(List.of(locationOf(IdempotentCommand.class), oldRuntime))
        .compile(file);

    assertThat(compilation).failed();
    assertThat(compilation).hadErrorCount(1);
    assertThat(compilation)
        .hadErrorContaining("[IDEM-903] The idem runtime on the class path is idem 0.0.1-old, but this annotation"
            + " processor is idem " + ProcessorVersion.VERSION + "; generated code runs only with the runtime of its"
            + " own idem version. Use dev.idem:idem-runtime:" + ProcessorVersion.VERSION
            + ", or the processor of version 0.0.1-old")
        .inFile(file)
        .onLineContaining("public interface WithOldRuntime");
    assertPointsAt(onlyError(compilation, "IDEM-903"), "interface");
  }

  private static File locationOf(Class<?> type) {
    try {
      return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String generated(Compilation compilation, String name) {
    return contentOf(compilation.generatedSourceFile(name)
        .orElseThrow(() -> new AssertionError(name + " was not generated: " + compilation.generatedFiles())));
  }
}
