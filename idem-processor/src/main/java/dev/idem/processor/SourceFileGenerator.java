package dev.idem.processor;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
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
 * element (what Gradle's isolating incremental mode requires) and writes the file. Subclasses build only the type.
 * Output depends on nothing but the model, so it is the same on every build.
 */
abstract class SourceFileGenerator<M> {

  static final String GENERATOR = "dev.idem.processor.IdemProcessor";
  static final String GENERATED_ANNOTATION = Generated.class.getCanonicalName();
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

  abstract TypeSpec.Builder write(M model, ClassName className);

  final void generate(M model) {
    ClassName className = className(model);
    TypeSpec type = write(model, className)
        .addAnnotation(AnnotationSpec.builder(Generated.class)
            .addMember("value", "$S", GENERATOR)
            .addMember("comments", "$S", "idem " + ProcessorVersion.VERSION)
            .build())
        .addOriginatingElement(originatingElement(model))
        .build();
    JavaFile file = JavaFile.builder(className.packageName(), type)
        .skipJavaLangImports(true)
        .indent("  ")
        .build();
    // Written by hand rather than with JavaFile.writeTo: JavaPoet leaves a blank at the end of a line it wraps
    // after "=", and trailing blanks in generated code show up in every diff and style check.
    String text = withoutTrailingBlanks(file.toString());
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

  /**
   * The blocks joined by {@code separator}: what {@code CodeBlock.join} and {@code CodeBlock.joining} build (the
   * separator added as a format without arguments before every block but the first), without their stream and
   * collector lambdas. The processor is loaded cold by every compilation, in a new class loader, and each lambda
   * call site is linked anew (a class spun by LambdaMetafactory) in every compile.
   */
  static CodeBlock join(List<CodeBlock> blocks, String separator) {
    CodeBlock.Builder joined = CodeBlock.builder();
    for (int i = 0; i < blocks.size(); i++) {
      if (i > 0) {
        joined.add(separator);
      }
      joined.add(blocks.get(i));
    }
    return joined.build();
  }

  /** Each name as a string literal ({@code $S}), joined by {@code ", "}. */
  static CodeBlock stringLiterals(List<String> names) {
    List<CodeBlock> literals = new ArrayList<>(names.size());
    for (String name : names) {
      literals.add(CodeBlock.of("$S", name));
    }
    return join(literals, ", ");
  }

  /**
   * The text without the blanks (spaces, tabs) that end its lines: what {@link #TRAILING_BLANKS} removes. JavaPoet
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
