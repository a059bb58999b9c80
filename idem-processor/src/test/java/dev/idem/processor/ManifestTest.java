package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;
import org.junit.jupiter.api.Test;

/** The manifest written for each service: its content, its stability, and that it reads back as written. */
class ManifestTest {

  private static String manifestOf(Compilation compilation, String service) {
    JavaFileObject file = compilation.generatedFile(StandardLocation.CLASS_OUTPUT, Manifest.resourceName(service))
        .orElseThrow(() -> new AssertionError("no manifest for " + service + " in " + compilation.generatedFiles()));
    return Compilations.contentOf(file);
  }

  @Test
  void listsEveryCommandWithScopeKeyPayloadShapeModeAndRetention() {
    Compilation compilation = Compilations.compile(Compilations.resource("manifest/v1/Payments.java"));
    assertThat(compilation).succeededWithoutWarnings();
    String json = manifestOf(compilation, "com.example.manifest.Payments");
    assertThat(json).isEqualTo("""
        {
          "service": "com.example.manifest.Payments",
          "commands": [
            {
              "scope": "com.example.manifest.Payments.pay",
              "method": "pay",
              "keyParts": ["requestId"],
              "payload": ["amountCents"],
              "resultType": "com.example.manifest.Payments.Receipt",
              "resultShape": "com.example.manifest.Payments.Receipt{amountCents:long,id:java.lang.String}",
              "resultShapeHash": "%s",
              "mode": "TRANSACTIONAL",
              "retention": "P1D"
            },
            {
              "scope": "payments.refund",
              "method": "refund",
              "keyParts": ["refundId"],
              "payload": [],
              "resultType": "com.example.manifest.Payments.Receipt",
              "resultShape": "com.example.manifest.Payments.Receipt{amountCents:long,id:java.lang.String}",
              "resultShapeHash": "%s",
              "mode": "TRANSACTIONAL",
              "retention": "P7D"
            }
          ]
        }
        """.formatted(
            CodecTypeReader.hash("com.example.manifest.Payments.Receipt{amountCents:long,id:java.lang.String}"),
            CodecTypeReader.hash("com.example.manifest.Payments.Receipt{amountCents:long,id:java.lang.String}")));
    Manifest read = Manifest.fromJson(json);
    assertThat(read.toJson()).isEqualTo(json);
  }

  @Test
  void theSameSourcesGiveTheSameBytes() {
    String first = manifestOf(Compilations.compile(Compilations.resource("manifest/v1/Payments.java")),
        "com.example.manifest.Payments");
    String second = manifestOf(Compilations.compile(Compilations.resource("manifest/v1/Payments.java")),
        "com.example.manifest.Payments");
    assertThat(second).isEqualTo(first);
  }

  @Test
  void shapesFollowTheCodecAcrossNestingSealedTypesAndCreators() {
    Compilation compilation = Compilations.compile(Compilations.resource("positive/fidelity/Shapes.java"));
    assertThat(compilation).succeededWithoutWarnings();
    String json = manifestOf(compilation, "com.example.fidelity.Shapes");
    assertThat(json).contains("\"resultShape\": \"sealed com.example.fidelity.Shapes.Figure["
        + "com.example.fidelity.Shapes.Circle{radius:double}|"
        + "com.example.fidelity.Shapes.Square{side:double}]\"");
    assertThat(json).contains("\"resultShape\": \"List<com.example.fidelity.Shapes.Money{amountCents:long,"
        + "currency:enum com.example.fidelity.Shapes.Currency[EUR,USD]}>\"");
    assertThat(json).contains("\"resultShape\": \"Map<java.lang.String,com.example.fidelity.Shapes.Account{"
        + "balanceCents:long,owner:java.lang.String}>\"");
    assertThat(json).contains("\"resultShape\": \"com.example.fidelity.Shapes.Node{children:List<"
        + "com.example.fidelity.Shapes.Node>,name:java.lang.String}\"");
    // What the runtime cannot learn from the classes travels in the result type token, and the spec carries the
    // shape's hash (compiled against the real runtime above, so these calls exist).
    String generated = Compilations.contentOf(
        compilation.generatedSourceFile("com.example.fidelity.Shapes_Idempotent").orElseThrow());
    assertThat(generated).containsMatch("ResultType\\.<Shapes\\.Figure>of\\(Shapes\\.Figure\\.class\\)\\s+"
        + "\\.withSubtypes\\(Shapes\\.Figure\\.class, Shapes\\.Circle\\.class, Shapes\\.Square\\.class\\),");
    assertThat(generated).contains(".withCreator(Shapes.Money.class, new String[] {\"amountCents\", \"currency\"},"
        + " long.class, Shapes.Currency.class),");
    assertThat(generated).contains("\"" + CodecTypeReader.hash("sealed com.example.fidelity.Shapes.Figure["
        + "com.example.fidelity.Shapes.Circle{radius:double}|com.example.fidelity.Shapes.Square{side:double}]")
        + "\", 86_400_000L /* retention P1D */,");
    assertThat(generated).contains("\"com.example.fidelity.Shapes#draw\");");
  }
}
