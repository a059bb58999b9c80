package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;

import com.palantir.javapoet.CodeBlock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What Literals writes into a format is what JavaPoet's $S and $N write: the generated sources do not change. */
class LiteralsTest {

  private static final List<String> TEXTS = List.of("", "requestId", "shop.placeOrder", "P1D",
      "bench.generated.Service0#op0", "a b-c/d:e*f", "with \"quotes\"", "back\\slash", "dollar$sign", "$S", "$",
      "tab\there", "new\nline", "caf\u00e9", "\u0000", "it's", "{}", "a*/b");

  @Test
  void stringsAreWrittenAsDollarSWritesThem() {
    for (String text : TEXTS) {
      Literals literals = new Literals().text("x = ").string(text).text(";");
      assertThat(CodeBlock.of(literals.format(), literals.args()).toString())
          .isEqualTo(CodeBlock.of("x = $S;", text).toString());
    }
  }

  @Test
  void arraysOfStringsAreWrittenAsDollarSWritesEach() {
    Literals literals = new Literals().strings(TEXTS);
    CodeBlock expected = CodeBlock.of("new String[] {$L}", SourceFileGenerator.stringLiterals(TEXTS));
    assertThat(CodeBlock.of(literals.format(), literals.args()).toString()).isEqualTo(expected.toString());
    Literals none = new Literals().strings(List.of());
    assertThat(CodeBlock.of(none.format(), none.args()).toString()).isEqualTo("new String[] {}");
  }

  @Test
  void namesAreWrittenAsDollarNWritesThem() {
    for (String name : List.of("requestId", "this.idem", "a$b", "$", "x, y$, z")) {
      Literals literals = new Literals().text("$L.", "idem").name(name).text("()");
      assertThat(CodeBlock.of(literals.format(), literals.args()).toString())
          .isEqualTo(CodeBlock.of("$L.$N()", "idem", name).toString());
    }
  }

  @Test
  void onlyPrintableAsciiWithoutQuoteBackslashOrDollarIsPlain() {
    assertThat(Literals.isPlain("shop.placeOrder")).isTrue();
    assertThat(Literals.isPlain("")).isTrue();
    assertThat(Literals.isPlain(null)).isFalse();
    assertThat(Literals.isPlain("a\"b")).isFalse();
    assertThat(Literals.isPlain("a\\b")).isFalse();
    assertThat(Literals.isPlain("a$b")).isFalse();
    assertThat(Literals.isPlain("caf\u00e9")).isFalse();
    assertThat(Literals.isPlain("a\nb")).isFalse();
  }
}
