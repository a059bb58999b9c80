package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.common.truth.Truth.assertWithMessage;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.idem.processor.Compilations.assertPointsAt;
import static dev.idem.processor.Compilations.onlyError;
import static dev.idem.processor.Compilations.resource;
import static dev.idem.processor.Compilations.run;

import com.google.testing.compile.Compilation;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One test per {@code @StateTransition} diagnostic (IDEM-1xx): each bad source is a real file under
 * {@code src/test/resources/negative/transitions}, compiled with the entities of {@code negative/transitions/model}.
 * Every case asserts the tag, the sentence saying how to fix it, the file, the line, the exact token under javac's
 * caret, that the error is reported once and that nothing is generated.
 */
class TransitionDiagnosticsTest {

  private static final Set<Message> COVERED = EnumSet.noneOf(Message.class);

  private static final List<String> MODEL = List.of("Order", "OrderStatus", "Invoice", "Note", "Draft");

  record Case(String file, Message message, String line, String token, List<String> fragments) {

    String resource() {
      return "negative/transitions/" + file + ".java";
    }

    @Override
    public String toString() {
      return message.tag() + " " + file;
    }
  }

  /** javac's caret for a class literal such as {@code Note.class} sits on its dot. */
  static Stream<Case> cases() {
    return Stream.of(
        new Case("NotAnEntity", Message.TRANSITION_NOT_AN_ENTITY, "entity = Note.class", ".class",
            List.of("entity = com.example.flow.model.Note.class is not annotated @jakarta.persistence.Entity",
                "Name the JPA entity class whose state this method changes")),
        new Case("EntityWithoutId", Message.TRANSITION_ENTITY_WITHOUT_ID, "entity = Draft.class", ".class",
            List.of("Entity com.example.flow.model.Draft has no single @Id", "Annotate the id with")),
        new Case("FieldMissing", Message.TRANSITION_FIELD_MISSING, "field = \"stauts\"", "\"stauts\"",
            List.of("Entity Order has no persistent field \"stauts\". Did you mean \"status\"?",
                "Set field to the name of the state field")),
        new Case("FieldType", Message.TRANSITION_FIELD_TYPE, "field = \"amount\"", "\"amount\"",
            List.of("State field Order.amount has type long", "must be an enum or a String")),
        new Case("UnknownState", Message.TRANSITION_UNKNOWN_STATE, "to = \"PIAD\"", "\"PIAD\"",
            List.of("to = \"PIAD\" is not a constant of OrderStatus. Did you mean PAID?")),
        new Case("UnknownFromState", Message.TRANSITION_UNKNOWN_STATE, "\"REFUNDED\"", "\"REFUNDED\"",
            List.of("from = \"REFUNDED\" is not a constant of OrderStatus.",
                "Use one of CREATED, PAID, SHIPPED, FINISHED.")),
        new Case("ToInFrom", Message.TRANSITION_TO_IN_FROM, "to = \"PAID\"", "\"PAID\"",
            List.of("to = \"PAID\" is also listed in from", "Remove \"PAID\" from from")),
        new Case("AlsoAcceptOverlap", Message.TRANSITION_ALSO_ACCEPT_OVERLAP, "alsoAccept =", "\"CREATED\"",
            List.of("alsoAccept = \"CREATED\" is one of the from states", "Remove it from alsoAccept")),
        new Case("NoEntityId", Message.TRANSITION_NO_ENTITY_ID, "@StateTransition", "@StateTransition",
            List.of("@StateTransition method pay has no @EntityId parameter", "pay(@EntityId Long id)")),
        new Case("EntityIdDuplicate", Message.TRANSITION_ENTITY_ID_DUPLICATE, "otherId", "@EntityId",
            List.of("Parameter otherId is the second @EntityId of pay", "Keep @EntityId on one parameter")),
        new Case("EntityIdType", Message.TRANSITION_ENTITY_ID_TYPE, "String orderId", "@EntityId",
            List.of("@EntityId parameter orderId has type java.lang.String, but the @Id of Order is"
                + " java.lang.Long", "Declare the parameter as java.lang.Long")),
        new Case("VersionWithoutVersion", Message.TRANSITION_VERSION_WITHOUT_VERSION, "long version",
            "@ExpectedVersion",
            List.of("entity Invoice has no @Version field", "Add @jakarta.persistence.Version to the entity")),
        new Case("VersionType", Message.TRANSITION_VERSION_TYPE, "String version", "@ExpectedVersion",
            List.of("@ExpectedVersion parameter version has type java.lang.String", "Declare it long or int")),
        new Case("ReturnType", Message.TRANSITION_RETURN_TYPE, "String pay(", "pay",
            List.of("@StateTransition method pay returns java.lang.String",
                "Return TransitionResult (APPLIED or ALREADY_APPLIED), boolean")),
        new Case("ExtraParameter", Message.TRANSITION_EXTRA_PARAMETER, "String note", "note",
            List.of("Parameter note of @StateTransition method pay is neither @EntityId nor @ExpectedVersion")),
        new Case("TransitionAndCommand", Message.TRANSITION_AND_COMMAND, "@IdempotentCommand",
            "@IdempotentCommand",
            List.of("pay is annotated both @StateTransition and @IdempotentCommand", "keep one of the two")),
        new Case("EntityIdWithoutTransition", Message.TRANSITION_PARAMETER_WITHOUT_TRANSITION, "void audit(",
            "@EntityId",
            List.of("@EntityId on parameter id has no effect because audit is not annotated @StateTransition")));
  }

  private static Compilations.Run compileWithModel(JavaFileObject file) {
    List<JavaFileObject> sources = new ArrayList<>();
    sources.add(file);
    for (String type : MODEL) {
      sources.add(resource("negative/transitions/model/" + type + ".java"));
    }
    return run(sources.toArray(JavaFileObject[]::new));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void reportsTheProblemOnceOnTheAnnotationValueWithAFix(Case c) {
    JavaFileObject file = resource(c.resource());
    Compilations.Run run = compileWithModel(file);
    Compilation compilation = run.compilation();

    assertThat(compilation).failed();
    assertThat(compilation).hadErrorContaining("[" + c.message().tag() + "] ").inFile(file)
        .onLineContaining(c.line());
    for (String fragment : c.fragments()) {
      assertThat(compilation).hadErrorContaining(fragment).inFile(file).onLineContaining(c.line());
    }
    assertThat(compilation).hadErrorCount(1);
    assertPointsAt(onlyError(compilation, c.message().tag()), c.token());
    assertWithMessage("a failing interface must not be generated").that(run.created()).isEmpty();
    COVERED.add(c.message());
  }

  /** A clean interface: generated, with a diagram per (interface, entity) and a warning for unreached states. */
  @Test
  void writesTheStateDiagramAndWarnsAboutUnreachedStates() {
    JavaFileObject flow = resource("positive/transitions/OrderFlow.java");
    Compilations.Run run = compileWithModel(flow);
    Compilation compilation = run.compilation();

    assertThat(compilation).succeeded();
    List<Diagnostic<? extends JavaFileObject>> warnings = compilation.warnings().stream()
        .filter(warning -> warning.getMessage(null).contains("[IDEM-120]"))
        .collect(Collectors.toList());
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).getMessage(null)).contains(
        "No @StateTransition of OrderFlow starts from or leads to state FINISHED of Order.status");
    assertThat(compilation).hadWarningContaining("[IDEM-120]").inFile(flow).onLineContaining("interface OrderFlow");
    COVERED.add(Message.TRANSITION_STATE_UNREACHED);

    String diagram = Compilations.contentOf(compilation
        .generatedFile(StandardLocation.CLASS_OUTPUT, "com.example.flow", "OrderFlow_Order.mmd").orElseThrow());
    assertThat(diagram).isEqualTo(""
        + "%% State machine of com.example.flow.model.Order.status as declared by com.example.flow.OrderFlow.\n"
        + "%% Generated by idem; do not edit. A note lists the later states in which a repeat is still a success.\n"
        + "stateDiagram-v2\n"
        + "    CREATED --> PAID : pay\n"
        + "    PAID --> SHIPPED : ship\n"
        + "    FINISHED : FINISHED (no transition)\n"
        + "    note right of PAID : pay repeated in SHIPPED is a no-op\n");

    // Isolating: the diagram, like the class, originates from the interface alone.
    for (RecordingProcessor.Created created : run.created()) {
      assertThat(created.originatingElements()).hasSize(1);
      assertThat(created.originatingElements().get(0).getSimpleName().toString()).isEqualTo("OrderFlow");
    }
    assertThat(run.created().stream().map(RecordingProcessor.Created::name).collect(Collectors.toList()))
        .containsExactly("com.example.flow.OrderFlow_Idempotent", "com.example.flow/OrderFlow_Order.mmd");

    String generated = Compilations.contentOf(
        compilation.generatedSourceFile("com.example.flow.OrderFlow_Idempotent").orElseThrow());
    assertThat(generated).contains("public OrderFlow_Idempotent(IdemRuntime runtime) {");
    assertThat(generated).contains(
        "\"UPDATE orders SET status = 'PAID', version = version + 1 WHERE id = ? AND status = 'CREATED'\"");
    assertThat(generated).contains("\"SELECT status FROM orders WHERE id = ? FOR UPDATE\"");
    assertThat(generated).contains("update.setObject(1, orderId);"); // Long: null-safe binding
  }

  @AfterAll
  static void everyTransitionMessageIsCovered() {
    Set<Message> missing = EnumSet.allOf(Message.class);
    // Transitions are IDEM-10x..12x; IDEM-15x (Redis-only commands, derived keys) are NegativeDiagnosticsTest's.
    missing.removeIf(message -> !message.tag().startsWith("IDEM-1") || message.tag().startsWith("IDEM-15"));
    missing.removeAll(COVERED);
    if (COVERED.size() > 1) {
      assertWithMessage("transition messages without a test").that(missing).isEmpty();
    }
  }
}
