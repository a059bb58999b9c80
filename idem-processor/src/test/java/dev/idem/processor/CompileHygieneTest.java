package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import java.util.List;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * What a user's strict build sees: idem claims its annotations, generated classes compile under -Xlint:all
 * -Werror even where the service uses deprecated types or names its parameters like generated members, idem's
 * warnings can be suppressed by name, and messages are the same on every run.
 */
class CompileHygieneTest {

  private static final List<String> GOLDEN = List.of(
      "golden/shop/OrderService.java", "golden/shop/Receipt.java", "golden/shop/PlaceOrder.java",
      "golden/shop/OrderPaid.java", "golden/shop/LegacyRefund.java", "golden/shop/PaymentDeclinedException.java",
      "golden/shop/OutOfStockException.java", "golden/shop/Warehouse.java");

  private static Compilation strict(String... resources) {
    return Compilations.idem().withOptions(Compilations.STRICT)
        .compile(java.util.Arrays.stream(resources).map(Compilations::resource).toArray(JavaFileObject[]::new));
  }

  /**
   * With -Xlint:processing, javac lists the annotations no processor claimed. idem's own and the @Generated on its
   * classes are never among them (the jakarta.inject annotations of the DI support belong to the user's DI
   * processor, if any, and a "*" processor such as idem's must not claim them).
   */
  @Test
  void idemClaimsItsOwnAnnotations() {
    Compilation compilation = Compilations.idem()
        .withOptions(List.of("--release", "17", "-Xlint:processing"))
        .compile(GOLDEN.stream().map(Compilations::resource).toArray(JavaFileObject[]::new));
    assertThat(compilation).succeeded();
    for (Diagnostic<? extends JavaFileObject> warning : compilation.warnings()) {
      String message = warning.getMessage(null);
      assertThat(message).doesNotContain("dev.idem.");
      assertThat(message).doesNotContain("javax.annotation.processing.Generated");
    }
    assertThat(strict(GOLDEN.toArray(String[]::new))).succeededWithoutWarnings();
  }

  /**
   * A build that checks Javadoc (doclint, or maven-javadoc-plugin with failOnWarnings over generated sources) finds
   * nothing missing in idem's classes: the user's own sources may warn, the generated ones never.
   */
  @Test
  void generatedClassesAreFullyDocumented() {
    List<String> sources = new java.util.ArrayList<>(GOLDEN);
    sources.add("positive/outbox/OrderEvents.java");
    Compilation compilation = Compilations.idem()
        .withOptions(List.of("--release", "17", "-Xdoclint:all/protected"))
        .compile(sources.stream().map(Compilations::resource).toArray(JavaFileObject[]::new));
    assertThat(compilation).succeeded();
    assertThat(compilation.generatedSourceFiles().size()).isAtLeast(3);
    List<String> inGenerated = compilation.diagnostics().stream()
        .filter(diagnostic -> diagnostic.getSource() != null)
        .filter(diagnostic -> diagnostic.getSource().getName().matches(".*_(Idempotent|Outbox|Commands)\\.java"))
        .map(diagnostic -> diagnostic.getSource().getName() + ":" + diagnostic.getLineNumber() + ": "
            + diagnostic.getMessage(null))
        .collect(Collectors.toList());
    assertThat(inGenerated).isEmpty();
  }

  @Test
  void deprecatedTypesInTheServiceLeaveTheGeneratedClassWarningFree() {
    Compilation compilation = strict("positive/hygiene/LegacyBilling.java");
    assertThat(compilation).succeededWithoutWarnings();
    String generated = contentOf(
        compilation.generatedSourceFile("com.example.billing.LegacyBilling_Idempotent").orElseThrow());
    assertThat(generated).contains("@SuppressWarnings({\"deprecation\", \"removal\"})");
  }

  @Test
  void aServiceWithoutDeprecatedTypesSuppressesNothing() {
    Compilation compilation = strict(GOLDEN.toArray(String[]::new));
    String generated = contentOf(compilation.generatedSourceFile("shop.OrderService_Idempotent").orElseThrow());
    assertThat(generated).doesNotContain("@SuppressWarnings");
  }

  @Test
  void parametersNamedLikeGeneratedMembersDoNotShadowThem() {
    Compilation compilation = strict("positive/hygiene/ShadowingNames.java");
    assertThat(compilation).succeededWithoutWarnings();
    String generated = contentOf(
        compilation.generatedSourceFile("com.example.billing.ShadowingNames_Idempotent").orElseThrow());
    // The parameters keep their names; the constants step aside.
    assertThat(generated).contains("String charge(String NO_PAYLOAD, long CHARGE, String idem, String delegate,");
    assertThat(generated).contains("CommandSpec<String> CHARGE_2 =");
    assertThat(generated).contains("Object[] NO_PAYLOAD_2 = {}");
    assertThat(generated).contains("return this.idem.<String>execute(CHARGE_2,");
    assertThat(generated).contains("() -> this.delegate.charge(NO_PAYLOAD, CHARGE, idem, delegate, runtime)");
  }

  @Test
  void idemWarningsAreSuppressedByNameOrTag() {
    List<String> model = List.of("Order", "OrderStatus").stream()
        .map(name -> "negative/transitions/model/" + name + ".java").collect(Collectors.toList());
    for (String quiet : List.of("positive/hygiene/QuietFlow.java", "positive/hygiene/SilentFlow.java")) {
      List<String> sources = new java.util.ArrayList<>(model);
      sources.add(quiet);
      assertThat(strict(sources.toArray(String[]::new))).succeededWithoutWarnings();
    }
    List<String> sources = new java.util.ArrayList<>(model);
    sources.add("positive/hygiene/OtherTagSuppressed.java");
    Compilation compilation = Compilations.compile(
        sources.stream().map(Compilations::resource).toArray(JavaFileObject[]::new));
    assertThat(compilation).succeeded();
    assertThat(compilation).hadWarningContaining("[IDEM-120]");
  }

  /** EntityModel kept its fields in a hash-ordered map, so this list came out in another order on every JVM. */
  @Test
  void messagesListPropertiesInDeclarationOrder() {
    JavaFileObject file = resource("negative/transitions/FieldListed.java");
    Compilation compilation = Compilations.compile(file, resource("negative/transitions/model/Wide.java"),
        resource("negative/transitions/model/OrderStatus.java"));
    assertThat(compilation).hadErrorContaining("Entity Wide has no persistent field \"lifecycle\". Its fields are"
        + " id, zulu, yankee, xray, whiskey, victor, uniform, tango, sierra, romeo, quebec.");
    List<String> first = messages(compilation);
    assertThat(messages(Compilations.compile(file, resource("negative/transitions/model/Wide.java"),
        resource("negative/transitions/model/OrderStatus.java")))).isEqualTo(first);
  }

  private static List<String> messages(Compilation compilation) {
    return compilation.diagnostics().stream().map(d -> d.getMessage(null)).collect(Collectors.toList());
  }
}
