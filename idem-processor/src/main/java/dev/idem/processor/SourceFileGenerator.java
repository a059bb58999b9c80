package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.regex.Pattern;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Generated;
import javax.annotation.processing.Messager;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;

/**
 * The one place that turns a type into a source file: it adds {@code @Generated} (with the idem version in its
 * {@code comments}, the version the generated code is compatible with), names exactly one originating
 * element (what Gradle's isolating incremental mode requires) and writes the file. Subclasses write only the type,
 * into a {@link JavaText}.
 * Output depends on nothing but the model, so it is the same on every build.
 */
abstract class SourceFileGenerator<M> {

  static final String GENERATOR = "dev.idem.processor.IdemProcessor";
  static final String GENERATED_ANNOTATION = Generated.class.getCanonicalName();
  private static final ClassName GENERATED = ClassName.get("javax.annotation.processing", "Generated");
  private static final Pattern TRAILING_BLANKS = Pattern.compile("[ \t]+$", Pattern.MULTILINE);
  /** Line terminators other than {@code \n} that {@code $} of {@link #TRAILING_BLANKS} also stops before. */
  private static final String OTHER_LINE_TERMINATORS = "\r\u0085\u2028\u2029";

  private final Filer filer;
  private final Messager messager;

  SourceFileGenerator(Filer filer, Messager messager) {
    this.filer = filer;
    this.messager = messager;
  }

  abstract ClassName className(M model);

  abstract Element originatingElement(M model);

  /**
   * Writes the type's declaration into {@code out} (the package and imports are added after): its header, with
   * {@link #generatedAnnotation} after its own annotations, and its body.
   */
  abstract void write(M model, ClassName className, JavaText out);

  final void generate(M model) {
    ClassName className = className(model);
    JavaText out = new JavaText();
    write(model, className, out);
    // JavaPoet left a blank at the end of a line wrapped after "=", and these files keep its layout; trailing
    // blanks in generated code show up in every diff and style check.
    String text = withoutTrailingBlanks(out.render(className.packageName()));
    try {
      JavaFileObject source = filer.createSourceFile(className.canonicalName(), originatingElement(model));
      try (Writer writer = source.openWriter()) {
        writer.write(text);
      }
    } catch (IOException e) {
      messager.printMessage(Diagnostic.Kind.ERROR,
          "Could not write " + className + ": " + e.getMessage(), originatingElement(model));
    }
  }

  /** {@code @Generated(value = "dev.idem.processor.IdemProcessor", comments = "idem <version>")}, on its lines. */
  static void generatedAnnotation(JavaText out) {
    out.text("@").type(GENERATED).text("(\n").indent(2)
        .text("value = ").literal(GENERATOR).text(",\n")
        .text("comments = ").literal("idem " + ProcessorVersion.VERSION)
        .unindent(2).text("\n)\n");
  }

  /** The names as string literals ({@code "a", "b"}), joined by {@code ", "}. */
  static void stringLiterals(JavaText out, List<String> names) {
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        out.text(", ");
      }
      out.literal(names.get(i));
    }
  }

  /**
   * The text without the blanks (spaces, tabs) that end its lines: what {@link #TRAILING_BLANKS} removes. JavaText
   * ends every line with {@code \n}, so lines are found with {@code indexOf} instead of the regular expression,
   * which tries a match at every character of every generated file; a text with any other line terminator (only
   * user-written text could bring one) still goes through the expression.
   */
  static String withoutTrailingBlanks(String text) {
    for (int i = 0; i < OTHER_LINE_TERMINATORS.length(); i++) {
      if (text.indexOf(OTHER_LINE_TERMINATORS.charAt(i)) >= 0) {
        return TRAILING_BLANKS.matcher(text).replaceAll("");
      }
    }
    StringBuilder result = new StringBuilder(text.length());
    int lineStart = 0;
    while (lineStart <= text.length()) {
      int lineEnd = text.indexOf('\n', lineStart);
      if (lineEnd < 0) {
        lineEnd = text.length();
      }
      int contentEnd = lineEnd;
      while (contentEnd > lineStart && (text.charAt(contentEnd - 1) == ' ' || text.charAt(contentEnd - 1) == '\t')) {
        contentEnd--;
      }
      result.append(text, lineStart, contentEnd);
      if (lineEnd < text.length()) {
        result.append('\n');
      }
      lineStart = lineEnd + 1;
    }
    return result.toString();
  }
}
