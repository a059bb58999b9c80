package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.common.truth.Truth.assertWithMessage;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static com.google.testing.compile.Compiler.javac;
import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/** Valid services: they compile cleanly, the output is stable, and the processor fits incremental builds. */
class PositiveCompilationTest {

  private static final List<String> GOLDEN_SOURCES = List.of(
      "golden/shop/OrderService.java", "golden/shop/Receipt.java", "golden/shop/PlaceOrder.java",
      "golden/shop/OrderPaid.java", "golden/shop/LegacyRefund.java", "golden/shop/PaymentDeclinedException.java", "golden/shop/OutOfStockException.java",
      "golden/shop/Warehouse.java");

  private static JavaFileObject[] golden() {
    return GOLDEN_SOURCES.stream().map(Compilations::resource).toArray(JavaFileObject[]::new);
  }

  @Test
  void inheritedMethodsAreImplemented() {
    Compilation compilation = Compilations.compile(
        resource("positive/inherited/PaymentCommands.java"), resource("positive/inherited/CardPayments.java"));

    // The generated class is final: it compiles only if it implements every inherited abstract method.
    assertThat(compilation).succeededWithoutWarnings();
    String cards = contentOf(compilation.generatedSourceFile("com.example.payments.CardPayments_Idempotent")
        .orElseThrow());
    assertThat(cards).contains("public void capture(String paymentId)");
    assertThat(cards).contains("public String authorize(String paymentId, long amountCents)");
    assertThat(cards).contains("return idem.<String>execute(AUTHORIZE,");
    // The inherited command keeps the scope of the interface that declares it, shared with PaymentCommands_Idempotent.
    assertThat(cards).contains(">transactional(\"com.example.payments.PaymentCommands.authorize\"");
    assertThat(cards).contains("return delegate.status(paymentId);");
    assertWithMessage("status() is implemented once").that(cards.split("String status\\(", -1)).hasLength(2);
    assertThat(compilation.generatedSourceFile("com.example.payments.PaymentCommands_Idempotent")).isPresent();
  }

  @Test
  void resultWrappersStoreTheWrappedTypeAndAskForTheOutcome() {
    Compilation compilation = Compilations.compile(resource("positive/outcome/Payments.java"));

    assertThat(compilation).succeededWithoutWarnings();
    String payments = contentOf(compilation.generatedSourceFile("com.example.payments.Payments_Idempotent")
        .orElseThrow());
    // The stored type is the wrapped one; the wrapper itself is never stored.
    assertThat(payments).contains("CommandSpec<List<Payments.Payment>> SPLIT =");
    assertThat(payments).contains("ResultType.<List<Payments.Payment>>parameterized(List.class, Payments.Payment.class)");
    assertThat(payments).contains("CommandSpec<Payments.Payment> CAPTURE =");
    assertThat(payments).contains("CommandSpec<Void> CANCEL =");
    assertThat(payments).contains("ResultType.<byte[]>of(byte[].class)");
    assertThat(payments).doesNotContain("ResultType<IdempotentResult");
    assertThat(payments).contains("public IdempotentResult<List<Payments.Payment>> split(");
    assertThat(payments).contains("return idem.<List<Payments.Payment>>executeWithOutcome(SPLIT,");
    assertThat(payments).contains("return idem.<Payments.Payment>executeWithOutcome(CAPTURE,");
    assertThat(payments).contains("return idem.<Void>executeWithOutcome(CANCEL,");
    assertThat(payments).contains("() -> delegate.capture(paymentId, amountCents);");
  }

  /** The replayable types that IDEM-051 to IDEM-054 point to, and payloads of the types they reject in results. */
  @Test
  void theFixesOfTheFidelityDiagnosticsCompile() {
    Compilation compilation = Compilations.compile(resource("positive/fidelity/ExactReplays.java"));

    assertThat(compilation).succeededWithoutWarnings();
    // The exception is captured through message(), which returns the constructor's argument undecorated.
    assertThat(compilation).generatedSourceFile("com.example.fidelity.ExactReplays_Idempotent")
        .contentsAsUtf8String().contains("e -> new Object[] {e.message(), e.declineCode()}");
  }

  @Test
  void localsForNestedPathsDoNotCollideWithParameters() {
    Compilation compilation = Compilations.compile(resource("positive/LocalNames.java"));

    assertThat(compilation).succeededWithoutWarnings();
    assertThat(compilation).generatedSourceFile("com.example.shop.LocalNames_Idempotent")
        .contentsAsUtf8String().contains("var messageHeader2 = message == null ? null : message.header();");
  }

  /** An outbox interface: <Interface>_Outbox, with keys read null-safely from the payload and optional headers. */
  @Test
  void outboxInterfacesGetAnOutboxClassWritingThroughTheEngine() {
    Compilation compilation = Compilations.compile(resource("positive/outbox/OrderEvents.java"));

    assertThat(compilation).succeededWithoutWarnings();
    String events = contentOf(compilation.generatedSourceFile("com.example.outbox.OrderEvents_Outbox")
        .orElseThrow());
    assertThat(events).contains("public final class OrderEvents_Outbox implements OrderEvents");
    assertThat(events).contains("public OrderEvents_Outbox(IdemRuntime runtime)");
    assertThat(events).contains("OutboxEventSpec.of(\"orders\", \"OrderCreated\", \"OrderEvents.orderCreated\")");
    assertThat(events).contains("OutboxEventSpec.of(\"orders\", \"order.created.v2\",");
    assertThat(events).contains("OutboxEventSpec.of(\"audit\", \"OrderPaid\", \"OrderEvents.audited\")");
    assertThat(events).contains("this.engine.writeOutboxEvent(ORDER_CREATED, event == null ? null : event.orderId(),"
        + " null, event);");
    assertThat(events).contains("var eventCustomer = event == null ? null : event.customer();");
    assertThat(events).contains("return this.engine.writeOutboxEvent(ORDER_CREATED_WITH_HEADERS, eventCustomer == null"
        + " ? null : eventCustomer.id(), headers, event);");
    assertThat(events).contains("this.engine.writeOutboxEvent(AUDITED, null, null, paid);");
    assertThat(events).doesNotContain("orderCreatedTwice");
    assertThat(compilation.generatedSourceFile("com.example.outbox.OrderEvents_Idempotent")).isEmpty();
  }

  /** A service that refers to a type generated by another processor is generated in a later round. */
  @Test
  void waitsForTypesGeneratedByOtherProcessors() {
    Compilation compilation = javac()
        .withProcessors(new FirstRoundGenerator("positive/deferred/generated/GeneratedReceipt.java"),
            new IdemProcessor(), new IdemProcessorClaims())
        .withOptions(Compilations.OPTIONS)
        .compile(resource("positive/deferred/Checkout.java"));

    assertThat(compilation).succeededWithoutWarnings();
    assertThat(compilation).generatedSourceFile("com.example.shop.Checkout_Idempotent")
        .contentsAsUtf8String().contains("public GeneratedReceipt checkout(String cartId)");
  }

  /**
   * A service that another processor generates is implemented in the round that sees it, though no element of the
   * first round carried an idem annotation: idem scans for the annotations javac reports present in each round.
   */
  @Test
  void implementsServicesThatOtherProcessorsGenerate() {
    Compilation compilation = javac()
        .withProcessors(new FirstRoundGenerator("positive/deferred/generated/GeneratedRefunds.java",
                "positive/deferred/generated/GeneratedReceipt.java"),
            new IdemProcessor(), new IdemProcessorClaims())
        .withOptions(Compilations.OPTIONS)
        .compile(resource("positive/deferred/Unannotated.java"));

    assertThat(compilation).succeededWithoutWarnings();
    assertThat(compilation).generatedSourceFile("com.example.shop.generated.GeneratedRefunds_Idempotent")
        .contentsAsUtf8String().contains("public GeneratedReceipt refund(String refundId)");
  }

  @Test
  void outputIsDeterministic() {
    Map<String, String> first = generatedSources(Compilations.compile(golden()));
    Map<String, String> again = generatedSources(Compilations.compile(golden()));
    List<JavaFileObject> reversed = new ArrayList<>(List.of(golden()));
    Collections.reverse(reversed);
    Map<String, String> reversedOrder = generatedSources(Compilations.idem().compile(reversed));

    assertThat(first.keySet()).containsExactly(
        "/SOURCE_OUTPUT/shop/OrderService_Idempotent.java", "/SOURCE_OUTPUT/shop/Warehouse_Stock_Idempotent.java");
    assertThat(again).containsExactlyEntriesIn(first);
    assertThat(reversedOrder).containsExactlyEntriesIn(first);
  }

  @Test
  void everyGeneratedFileCarriesGenerated() {
    Compilation compilation = Compilations.compile(golden());
    assertThat(compilation).succeeded();
    for (JavaFileObject file : compilation.generatedSourceFiles()) {
      assertWithMessage(file.getName()).that(contentOf(file))
          .contains("\n@Generated(\n    value = \"dev.idem.processor.IdemProcessor\",\n    comments = \"idem "
              + ProcessorVersion.VERSION + "\"\n)\npublic final class ");
      // The constructor hands the same version to the runtime, which refuses any other.
      assertWithMessage(file.getName()).that(contentOf(file))
          .contains("IdemEngine.of(runtime, \"" + ProcessorVersion.VERSION + "\");");
      assertWithMessage(file.getName()).that(contentOf(file)).contains("import javax.annotation.processing.Generated;");
    }
  }

  /**
   * Gradle's isolating mode requires exactly one originating element per generated file: the interface, whose
   * name the file's name is derived from.
   */
  @Test
  void eachGeneratedFileHasItsInterfaceAsTheOnlyOriginatingElement() {
    List<JavaFileObject> sources = new ArrayList<>(List.of(golden()));
    sources.add(resource("positive/inherited/PaymentCommands.java"));
    sources.add(resource("positive/inherited/CardPayments.java"));
    Compilations.Run run = Compilations.run(sources.toArray(JavaFileObject[]::new));

    assertThat(run.compilation()).succeeded();
    Map<String, String> originByFile = new LinkedHashMap<>();
    for (RecordingProcessor.Created created : run.created()) {
      assertWithMessage("originating elements of %s", created.name())
          .that(created.originatingElements()).hasSize(1);
      TypeElement origin = (TypeElement) created.originatingElements().get(0);
      assertThat(origin.getKind()).isEqualTo(ElementKind.INTERFACE);
      originByFile.put(created.name(), origin.getQualifiedName().toString());
    }
    assertThat(originByFile).containsExactly(
        "shop.OrderService_Idempotent", "shop.OrderService",
        "shop.Warehouse_Stock_Idempotent", "shop.Warehouse.Stock",
        "com.example.payments.CardPayments_Idempotent", "com.example.payments.CardPayments",
        "com.example.payments.PaymentCommands_Idempotent", "com.example.payments.PaymentCommands",
        // one manifest per service, so that the processor stays isolating
        "/META-INF/idem/shop.OrderService.json", "shop.OrderService",
        "/META-INF/idem/shop.Warehouse.Stock.json", "shop.Warehouse.Stock",
        "/META-INF/idem/com.example.payments.CardPayments.json", "com.example.payments.CardPayments",
        "/META-INF/idem/com.example.payments.PaymentCommands.json", "com.example.payments.PaymentCommands");
  }

  @Test
  void declaredIsolatingForGradle() throws IOException {
    assertThat(resourceLines("META-INF/gradle/incremental.annotation.processors"))
        .containsAtLeast(IdemProcessor.class.getName() + ",isolating",
            IdemProcessorClaims.class.getName() + ",isolating").inOrder();
  }

  @Test
  void registeredAsAnAnnotationProcessor() throws IOException {
    // In this order: the claims come after idem has seen its annotations (see IdemProcessorClaims).
    assertThat(resourceLines("META-INF/services/javax.annotation.processing.Processor"))
        .containsAtLeast(IdemProcessor.class.getName(), IdemProcessorClaims.class.getName()).inOrder();
  }

  /** The lines of every copy of the resource on the classpath, so that the processor's own copy is among them. */
  private static List<String> resourceLines(String name) throws IOException {
    List<String> lines = new ArrayList<>();
    for (URL url : Collections.list(IdemProcessor.class.getClassLoader().getResources(name))) {
      try (InputStream in = url.openStream()) {
        new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip).forEach(lines::add);
      }
    }
    return lines;
  }

  private static Map<String, String> generatedSources(Compilation compilation) {
    assertThat(compilation).succeeded();
    Map<String, String> sources = new LinkedHashMap<>();
    for (JavaFileObject file : compilation.generatedSourceFiles()) {
      sources.put(file.getName(), contentOf(file));
    }
    return sources;
  }
}
