package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;

import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.TypeVariableName;
import com.palantir.javapoet.WildcardTypeName;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Modifier;
import org.junit.jupiter.api.Test;

/**
 * {@link JavaText} writes what JavaPoet 0.22 writes for the same code: the generated files kept JavaPoet's layout
 * when the writers stopped using its format engine, and these cases reach the rules the golden files may not (a
 * simple name two imports want, a type variable or member type that hides a name, a signature too long for a line).
 * Each case builds the class both ways and compares the files.
 */
class JavaTextTest {

  private static final ClassName UTIL_LIST = ClassName.get("java.util", "List");
  private static final ClassName OTHER_LIST = ClassName.get("com.example.other", "List");
  private static final ClassName SAME_PACKAGE_MAP = ClassName.get("shop", "Map");
  private static final ClassName UTIL_MAP = ClassName.get("java.util", "Map");
  private static final ClassName ENTRY = ClassName.get("java.util", "Map", "Entry");
  private static final ClassName FOREIGN_DELEGATE = ClassName.get("com.example.other", "Delegate");
  private static final ClassName STRING = ClassName.get(String.class);
  private static final ClassName T_CLASS = ClassName.get("com.example.other", "T");
  private static final ClassName LONG_NAME =
      ClassName.get("com.example.a.very.long.package.name", "AnEvenLongerTypeNameThatFillsTheLine");
  private static final ClassName EXCEPTION = ClassName.get("com.example.other", "SomethingWentWrongException");

  @Test
  void importsEachSimpleNameOnceAndQualifiesTheNamesThatAreTaken() {
    TypeName listOfLists = ParameterizedTypeName.get(UTIL_LIST, OTHER_LIST);
    TypeName entries = ParameterizedTypeName.get(UTIL_LIST,
        WildcardTypeName.subtypeOf(ParameterizedTypeName.get(ENTRY, STRING, ArrayTypeName.of(TypeName.INT))));
    TypeName sink = ParameterizedTypeName.get(UTIL_LIST, WildcardTypeName.supertypeOf(SAME_PACKAGE_MAP));
    TypeName any = ParameterizedTypeName.get(UTIL_LIST, WildcardTypeName.subtypeOf(Object.class));

    TypeSpec poet = TypeSpec.classBuilder("Names")
        .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
        .addJavadoc("Uses {@link $T} and {@link $T}.\n\n<p>A second paragraph.\n", UTIL_LIST, UTIL_MAP)
        .addField(FieldSpec.builder(listOfLists, "lists", Modifier.PRIVATE, Modifier.FINAL)
            .initializer("null").build())
        .addField(FieldSpec.builder(entries, "entries", Modifier.PRIVATE, Modifier.STATIC).build())
        .addField(FieldSpec.builder(sink, "sink", Modifier.PRIVATE).build())
        .addField(FieldSpec.builder(any, "any", Modifier.PRIVATE).build())
        .addField(FieldSpec.builder(UTIL_MAP, "map", Modifier.PRIVATE).build())
        .addField(FieldSpec.builder(FOREIGN_DELEGATE, "delegate", Modifier.PRIVATE).build())
        .addField(FieldSpec.builder(ClassName.get("shop", "Names", "Delegate"), "own", Modifier.PRIVATE).build())
        .addType(TypeSpec.annotationBuilder("Delegate").addModifiers(Modifier.PUBLIC).build())
        .build();

    JavaText text = new JavaText();
    TypeText.beginHeader(text, "Names");
    text.beginJavadoc().text("Uses {@link ").type(UTIL_LIST).text("} and {@link ").type(UTIL_MAP)
        .text("}.\n\n<p>A second paragraph.\n").endJavadoc()
        .text("public final class Names");
    TypeText type = TypeText.open(text, "Names", Set.of("Delegate"));
    type.field().text("private final ").type(listOfLists).text(" lists = null;\n");
    type.staticField().text("private static ").type(entries).text(" entries;\n");
    type.field().text("private ").type(sink).text(" sink;\n");
    type.field().text("private ").type(any).text(" any;\n");
    type.field().text("private ").type(UTIL_MAP).text(" map;\n");
    type.field().text("private ").type(FOREIGN_DELEGATE).text(" delegate;\n");
    type.field().text("private ").type(ClassName.get("shop", "Names", "Delegate")).text(" own;\n");
    JavaText delegate = type.type();
    TypeText.beginHeader(delegate, "Delegate");
    delegate.text("public @interface Delegate");
    TypeText.open(delegate, "Delegate", Set.of()).close();
    type.close();

    String expected = javaPoet(poet);
    assertThat(text.render("shop")).isEqualTo(expected);
    // What the case is about, should JavaPoet's rules ever change under it:
    assertThat(expected).contains("import java.util.List;");
    assertThat(expected).contains("private final List<com.example.other.List> lists");
    // shop.Map is referred to, so java.util.Map is not imported, and neither is its member Entry's outer name.
    assertThat(expected).contains("List<? extends java.util.Map.Entry<String, int[]>>");
    assertThat(expected).contains("private java.util.Map map;");
    assertThat(expected).contains("private com.example.other.Delegate delegate;");
    assertThat(expected).contains("private Delegate own;");
  }

  @Test
  void wrapsLongSignaturesAndContinuesStatementsAsJavaPoetDoes() {
    TypeVariableName t = TypeVariableName.get("T", ParameterizedTypeName.get(ClassName.get(Comparable.class),
        TypeVariableName.get("T")));
    MethodSpec poetMethod = MethodSpec.methodBuilder("transfer")
        .addAnnotation(Override.class)
        .addModifiers(Modifier.PUBLIC)
        .addTypeVariable(t)
        .returns(ParameterizedTypeName.get(UTIL_LIST, t))
        .addParameter(LONG_NAME, "first", Modifier.FINAL)
        .addParameter(LONG_NAME, "second")
        .addParameter(T_CLASS, "shadowed")
        .addParameter(ArrayTypeName.of(STRING), "rest")
        .varargs(true)
        .addException(EXCEPTION)
        .addException(ClassName.get("com.example.other", "AnotherRatherLongNamedException"))
        .addStatement("return $T.of(first,\nsecond,\n$S)", UTIL_LIST, "a \"quoted\"\nline\tand\u0001 more")
        .build();
    TypeSpec poet = TypeSpec.classBuilder("Wrapped").addModifiers(Modifier.PUBLIC).addMethod(poetMethod).build();

    JavaText text = new JavaText();
    TypeText.beginHeader(text, "Wrapped");
    text.text("public class Wrapped");
    TypeText type = TypeText.open(text, "Wrapped", Set.of());
    MethodSignature signature = new MethodSignature("transfer", Set.of(Modifier.PUBLIC), List.of(t),
        ParameterizedTypeName.get(UTIL_LIST, t),
        List.of(new MethodSignature.Parameter(LONG_NAME, "first", Set.of(Modifier.FINAL)),
            new MethodSignature.Parameter(LONG_NAME, "second", Set.of()),
            new MethodSignature.Parameter(T_CLASS, "shadowed", Set.of()),
            new MethodSignature.Parameter(ArrayTypeName.of(STRING), "rest", Set.of())),
        true, List.of(EXCEPTION, ClassName.get("com.example.other", "AnotherRatherLongNamedException")));
    JavaText method = type.method();
    ServiceWriter.beginMethod(method, signature);
    method.beginStatement().text("return ").type(UTIL_LIST).text(".of(first,\nsecond,\n")
        .literal("a \"quoted\"\nline\tand\u0001 more").text(");\n").endStatement();
    ServiceWriter.endMethod(method, signature);
    type.close();

    String expected = javaPoet(poet);
    assertThat(text.render("shop")).isEqualTo(expected);
    assertThat(expected).contains("com.example.other.T shadowed");
    assertThat(expected).contains("transfer(\n      final AnEvenLongerTypeNameThatFillsTheLine first,"); // after "("
    assertThat(expected).contains("SomethingWentWrongException,\n      AnotherRatherLongNamedException {");
  }

  @Test
  void writesJavaPoetsMultiMemberAnnotationAndInitializerLayout() {
    TypeSpec poet = TypeSpec.classBuilder("Annotated")
        .addAnnotation(com.palantir.javapoet.AnnotationSpec.builder(javax.annotation.processing.Generated.class)
            .addMember("value", "$S", SourceFileGenerator.GENERATOR)
            .addMember("comments", "$S", "idem " + ProcessorVersion.VERSION)
            .build())
        .addField(FieldSpec.builder(ParameterizedTypeName.get(UTIL_LIST, STRING), "NAMES", Modifier.PRIVATE,
                Modifier.STATIC, Modifier.FINAL)
            .initializer(CodeBlock.builder().indent().indent().add("\n$T.of($S,\n", UTIL_LIST, "a")
                .indent().indent().add("$S)", "b").unindent().unindent().unindent().unindent().build())
            .build())
        .build();

    JavaText text = new JavaText();
    TypeText.beginHeader(text, "Annotated");
    SourceFileGenerator.generatedAnnotation(text);
    text.text("class Annotated");
    TypeText type = TypeText.open(text, "Annotated", Set.of());
    type.staticField().text("private static final ").type(ParameterizedTypeName.get(UTIL_LIST, STRING))
        .text(" NAMES = ").indent(2).text("\n").type(UTIL_LIST).text(".of(").literal("a").text(",\n").indent(2)
        .literal("b").text(")").unindent(4).text(";\n");
    type.close();

    assertThat(text.render("shop")).isEqualTo(javaPoet(poet));
  }

  private static String javaPoet(TypeSpec type) {
    return JavaFile.builder("shop", type).skipJavaLangImports(true).indent("  ").build().toString();
  }
}
