package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Trailing blanks are removed by hand exactly as the regular expression they replace removes them. */
class SourceFileGeneratorTest {

  private static final Pattern TRAILING_BLANKS = Pattern.compile("[ \t]+$", Pattern.MULTILINE);

  @Test
  void removesTrailingBlanksLikeTheRegularExpression() {
    List<String> texts = List.of(
        "",
        " ",
        "\n",
        " \n \n",
        "a = \n    b;\n",
        "a\t \t\nb  ",
        "  indented stays\n\tso does this  \n",
        "no newline at the end \t",
        "a \r\nb \rc \u0085d \u2028e \u2029f ",
        "\"literal with \\n inside \" \n");
    for (String text : texts) {
      assertThat(SourceFileGenerator.withoutTrailingBlanks(text))
          .isEqualTo(TRAILING_BLANKS.matcher(text).replaceAll(""));
    }
  }
}
