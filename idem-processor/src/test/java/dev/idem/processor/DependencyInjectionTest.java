package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import org.junit.jupiter.api.Test;

/**
 * The generated constructor is injectable exactly where a DI API is on the user's compile class path, so that a
 * build without one still compiles and {@code new Transfers_Idempotent(delegate, runtime)} keeps working.
 * (The real containers are exercised in idem-di-tests.)
 */
class DependencyInjectionTest {

  private static final String GENERATED = "com.example.bank.Transfers_Idempotent";

  private static String generatedWithout(String... jarNames) {
    Compilation compilation = Compilations.idem()
        .withClasspath(Compilations.classPathWithout(jarNames))
        .compile(resource("positive/di/Transfers.java"));
    assertThat(compilation).succeededWithoutWarnings();
    return contentOf(compilation.generatedSourceFile(GENERATED).orElseThrow());
  }

  @Test
  void withoutAnyInjectApiTheConstructorIsPlain() {
    String generated = generatedWithout("jakarta.inject", "javax.inject");

    assertThat(generated).contains("  public Transfers_Idempotent(Transfers delegate, IdemRuntime runtime) {");
    assertThat(generated).doesNotContain("Inject");
    assertThat(generated).doesNotContain("Qualifier");
    assertThat(generated).doesNotContain("@interface");
  }

  @Test
  void withJakartaInjectOnlyTheConstructorIsJakartaInjectable() {
    String generated = generatedWithout("javax.inject");

    assertThat(generated).contains("import jakarta.inject.Inject;");
    assertThat(generated).contains("import jakarta.inject.Qualifier;");
    assertThat(generated).contains("  @Inject\n"
        + "  public Transfers_Idempotent(@Delegate Transfers delegate, IdemRuntime runtime) {");
    assertThat(generated).contains("  @Qualifier\n  @Documented\n  @Retention(RetentionPolicy.RUNTIME)\n");
    assertThat(generated).contains("  public @interface Delegate {");
    assertThat(generated).doesNotContain("javax.inject");
  }

  @Test
  void withJavaxInjectOnlyTheConstructorIsJavaxInjectable() {
    String generated = generatedWithout("jakarta.inject");

    assertThat(generated).contains("import javax.inject.Inject;");
    assertThat(generated).contains("  @Inject\n"
        + "  public Transfers_Idempotent(@Delegate Transfers delegate, IdemRuntime runtime) {");
    assertThat(generated).contains("import javax.inject.Qualifier;");
    assertThat(generated).doesNotContain("jakarta.inject");
  }

  /** Dagger 2 reads either API; both annotations keep one class usable by Guice 7 (jakarta) and older code. */
  @Test
  void withBothApisTheConstructorCarriesBoth() {
    String generated = generatedWithout();

    assertThat(generated).contains("  @Inject\n  @javax.inject.Inject\n  public Transfers_Idempotent(");
    assertThat(generated).contains("  @Qualifier\n  @javax.inject.Qualifier\n");
  }
}
