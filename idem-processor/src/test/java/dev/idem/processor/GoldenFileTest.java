package dev.idem.processor;

import static com.google.common.truth.Truth.assertWithMessage;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pins the generated source of a representative service ({@code golden/shop/OrderService.java}, the nested
 * {@code Warehouse.Stock}, and the transitions of {@code Shipping}, whose entity's names need quoting, so that its
 * SQL differs between MariaDB and the other dialects, and the single-flight jobs of {@code Jobs}) against the files under {@code golden/expected}, both as Java
 * (hasSourceEquivalentTo) and as exact text, so that a change of formatting is noticed in review as well.
 *
 * <p>To regenerate the golden files after an intended change of the generated code, run
 * <pre>{@code mvn -pl idem-processor -am test -Dtest=GoldenFileTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Didem.updateGolden=true}</pre>
 * from the repository root; it rewrites {@code idem-processor/src/test/resources/golden/expected/...} with the
 * current output. Review the diff of those files before committing them.
 */
class GoldenFileTest {

  private static final String UPDATE_PROPERTY = "idem.updateGolden";
  /** Stands for {@link ProcessorVersion#VERSION} in the golden files. */
  private static final String VERSION_PLACEHOLDER = "${idem.version}";
  /** Relative to the module directory, which is the working directory of Maven's test runs. */
  private static final Path GOLDEN_SOURCES = Path.of("src", "test", "resources");

  private static final List<String> SOURCES = List.of(
      "golden/shop/OrderService.java",
      "golden/shop/Receipt.java",
      "golden/shop/PlaceOrder.java",
      "golden/shop/OrderPaid.java",
      "golden/shop/LegacyRefund.java",
      "golden/shop/PaymentDeclinedException.java", "golden/shop/OutOfStockException.java",
      "golden/shop/Warehouse.java",
      "golden/shop/Shipping.java", "golden/shop/Shipment.java",
      "golden/shop/Jobs.java");

  private static Compilation compilation;

  @BeforeAll
  static void compileTheRepresentativeService() {
    compilation = Compilations.compile(SOURCES.stream().map(Compilations::resource).toArray(JavaFileObject[]::new));
    // The generated code compiles against the real runtime on the test classpath, under the build's -Xlint.
    assertThat(compilation).succeededWithoutWarnings();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"shop.OrderService_Idempotent", "shop.Warehouse_Stock_Idempotent", "shop.Shipping_Idempotent",
      "shop.Jobs_Idempotent"})
  void generatedSourceMatchesTheGoldenFile(String generatedClass) throws IOException {
    String golden = "golden/expected/" + generatedClass.replace('.', '/') + ".java";
    JavaFileObject generated = compilation.generatedSourceFile(generatedClass)
        .orElseThrow(() -> new AssertionError(generatedClass + " was not generated: " + compilation.generatedFiles()));
    // The golden files hold a placeholder for the idem version, so that a release does not change them.
    String actual = contentOf(generated).replace('"' + ProcessorVersion.VERSION + '"', '"' + VERSION_PLACEHOLDER + '"')
        .replace("\"idem " + ProcessorVersion.VERSION + '"', "\"idem " + VERSION_PLACEHOLDER + '"');

    if (Boolean.getBoolean(UPDATE_PROPERTY)) {
      Path file = GOLDEN_SOURCES.resolve(golden);
      Files.createDirectories(file.getParent());
      Files.writeString(file, actual, StandardCharsets.UTF_8);
      System.out.println("Rewrote golden file " + file.toAbsolutePath());
      return;
    }

    JavaFileObject expectedFile = resource(golden);
    String expected = contentOf(expectedFile);
    assertThat(compilation).generatedSourceFile(generatedClass).hasSourceEquivalentTo(JavaFileObjects.forSourceString(
        generatedClass, expected.replace(VERSION_PLACEHOLDER, ProcessorVersion.VERSION)));
    if (!expected.equals(actual)) {
      throw new AssertionError("The generated " + generatedClass + " differs in formatting from " + golden
          + " (- golden, + generated). If the change is intended, regenerate with -D" + UPDATE_PROPERTY
          + "=true (see the class comment) and review the diff.\n" + diff(expected, actual));
    }
  }

  /** A line diff (longest common subsequence), enough to see what changed in a few hundred lines. */
  static String diff(String expected, String actual) {
    String[] a = expected.split("\n", -1);
    String[] b = actual.split("\n", -1);
    int[][] common = new int[a.length + 1][b.length + 1];
    for (int i = a.length - 1; i >= 0; i--) {
      for (int j = b.length - 1; j >= 0; j--) {
        common[i][j] = a[i].equals(b[j]) ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
      }
    }
    List<String> out = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i].equals(b[j])) {
        i++;
        j++;
      } else if (i < a.length && (j == b.length || common[i + 1][j] >= common[i][j + 1])) {
        out.add(String.format("-%4d: %s", i + 1, visible(a[i++])));
      } else {
        out.add(String.format("+%4d: %s", j + 1, visible(b[j++])));
      }
    }
    return String.join("\n", out);
  }

  /** Makes trailing blanks and carriage returns visible, the usual invisible differences. */
  private static String visible(String line) {
    return line.replace("\r", "\\r").replaceAll("([ \t]+)$", "$1⏎");
  }
}
