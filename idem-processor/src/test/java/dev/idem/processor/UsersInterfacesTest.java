package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interfaces as users write them: commands and transitions side by side, and interfaces that only extend a
 * service.
 */
class UsersInterfacesTest {

  private static final List<String> MODEL = List.of("Order", "OrderStatus");

  /**
   * The delegate of a mixed interface implements {@code OrderDesk_Commands}: the command and the plain method, not
   * the transitions it would never be called for. The user's delegate compiles in the same build.
   */
  @Test
  void mixedInterfaceTakesADelegateOfItsCommandsOnly() {
    List<JavaFileObject> sources = new ArrayList<>(List.of(
        resource("positive/mixed/OrderDesk.java"), resource("positive/mixed/JdbcOrderDesk.java")));
    for (String type : MODEL) {
      sources.add(resource("negative/transitions/model/" + type + ".java"));
    }
    Compilation compilation = Compilations.compile(sources.toArray(JavaFileObject[]::new));

    assertThat(compilation).succeededWithoutWarnings();
    String commands = contentOf(compilation.generatedSourceFile("com.example.flow.OrderDesk_Commands").orElseThrow());
    assertThat(commands).contains("public interface OrderDesk_Commands {");
    assertThat(commands).contains("long place(String requestId, long amount) throws IOException;");
    assertThat(commands).contains("String describe(long orderId);");
    assertThat(commands).doesNotContain("pay(");
    assertThat(commands).doesNotContain("ship(");
    assertThat(commands).doesNotContain("@IdempotencyKey"); // the delegate is plain Java

    String generated = contentOf(
        compilation.generatedSourceFile("com.example.flow.OrderDesk_Idempotent").orElseThrow());
    assertThat(generated).contains(
        "public OrderDesk_Idempotent(@Delegate OrderDesk_Commands delegate, IdemRuntime runtime) {");
    assertThat(generated).contains("private final OrderDesk_Commands delegate;");
  }

  /** A service without transitions keeps its own interface as the delegate's type, and gets no extra file. */
  @Test
  void commandOnlyInterfaceDelegatesToItself() {
    Compilation compilation = Compilations.compile(resource("positive/di/Transfers.java"));

    assertThat(compilation).succeededWithoutWarnings();
    assertThat(compilation.generatedSourceFile("com.example.bank.Transfers_Commands")).isEmpty();
    assertThat(contentOf(compilation.generatedSourceFile("com.example.bank.Transfers_Idempotent").orElseThrow()))
        .contains("public Transfers_Idempotent(@Delegate Transfers delegate, IdemRuntime runtime) {");
  }

  /** {@code interface WalletPayments extends PaymentCommands {}} gets its implementation, nested ones too. */
  @Test
  void interfaceThatOnlyExtendsAServiceIsImplemented() {
    Compilation compilation = Compilations.compile(
        resource("positive/inherited/PaymentCommands.java"), resource("positive/inheriting/WalletPayments.java"));

    assertThat(compilation).succeededWithoutWarnings();
    String wallet = contentOf(
        compilation.generatedSourceFile("com.example.payments.WalletPayments_Idempotent").orElseThrow());
    assertThat(wallet).contains("public final class WalletPayments_Idempotent implements WalletPayments {");
    assertThat(wallet).contains(">transactional(\"com.example.payments.PaymentCommands.authorize\"");
    String refunds = contentOf(
        compilation.generatedSourceFile("com.example.payments.WalletPayments_Refunds_Idempotent").orElseThrow());
    assertThat(refunds).contains("return idem.<String>execute(AUTHORIZE,");
    assertThat(refunds).contains("delegate.refund(paymentId);");
  }

  /**
   * The annotated interface comes from a library jar and the source set holds only the extending interface, so no
   * idem annotation appears in it at all: idem still runs and implements it.
   */
  @Test
  void interfaceExtendingAServiceFromALibraryIsImplemented(@TempDir Path library) throws IOException {
    Compilation libraryBuild = Compilations.compile(resource("positive/inherited/PaymentCommands.java"));
    assertThat(libraryBuild).succeeded();
    for (JavaFileObject file : libraryBuild.generatedFiles()) {
      if (file.getKind() == JavaFileObject.Kind.CLASS) {
        // /CLASS_OUTPUT/com/example/payments/PaymentCommands.class
        Path target = library.resolve(file.getName().replaceFirst("^/CLASS_OUTPUT/", ""));
        Files.createDirectories(target.getParent());
        try (InputStream in = file.openInputStream()) {
          Files.copy(in, target);
        }
      }
    }
    List<java.io.File> classPath = new ArrayList<>(Compilations.classPathWithout());
    classPath.add(library.toFile());

    Compilation compilation = Compilations.idem().withClasspath(classPath)
        .compile(resource("positive/inheriting/WalletPayments.java"));

    assertThat(compilation).succeededWithoutWarnings();
    assertThat(compilation.generatedSourceFile("com.example.payments.WalletPayments_Idempotent")).isPresent();
  }

  /** A generic interface that extends a service cannot be implemented as it is: a warning with the way out. */
  @Test
  void genericInterfaceThatExtendsAServiceIsReported() {
    JavaFileObject generic = resource("negative/inheriting/GenericPayments.java");
    Compilation compilation = Compilations.compile(resource("positive/inherited/PaymentCommands.java"), generic);

    assertThat(compilation).succeeded();
    Diagnostic<? extends JavaFileObject> warning = compilation.warnings().stream()
        .filter(w -> w.getMessage(null).contains("[" + Message.GENERIC_INHERITING_INTERFACE.tag() + "]"))
        .reduce((a, b) -> {
          throw new AssertionError("reported twice: " + a + "\n" + b);
        })
        .orElseThrow(() -> new AssertionError("no IDEM-060 in " + compilation.diagnostics()));
    assertThat(compilation).hadWarningContaining("[IDEM-060] Interface GenericPayments inherits idem-annotated"
        + " methods but declares type parameters, so idem generates no GenericPayments_Idempotent")
        .inFile(generic).onLineContaining("public interface GenericPayments<T>");
    assertThat(warning.getMessage(null)).contains("interface OrderPayments extends GenericPayments<Order> {}");
    Compilations.assertPointsAt(warning, "interface GenericPayments");
    assertThat(compilation.generatedSourceFile("com.example.payments.GenericPayments_Idempotent")).isEmpty();
    assertThat(compilation.generatedSourceFile("com.example.payments.PaymentCommands_Idempotent")).isPresent();
  }
}
