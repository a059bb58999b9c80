package dev.idem.processor;

import java.util.LinkedHashSet;
import java.util.Set;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;

/** Small questions about type mirrors that several validators ask. */
final class TypeMirrors {

  private TypeMirrors() {}

  /** Every class or interface a type names: itself, its type arguments, array components and wildcard bounds. */
  static Set<TypeElement> declaredElements(TypeMirror type) {
    Set<TypeElement> result = new LinkedHashSet<>();
    collect(type, result);
    return result;
  }

  private static void collect(TypeMirror type, Set<TypeElement> result) {
    switch (type.getKind()) {
      case DECLARED -> {
        DeclaredType declared = (DeclaredType) type;
        if (result.add((TypeElement) declared.asElement())) {
          declared.getTypeArguments().forEach(argument -> collect(argument, result));
        }
      }
      case ARRAY -> collect(((ArrayType) type).getComponentType(), result);
      case WILDCARD -> {
        WildcardType wildcard = (WildcardType) type;
        if (wildcard.getExtendsBound() != null) {
          collect(wildcard.getExtendsBound(), result);
        }
        if (wildcard.getSuperBound() != null) {
          collect(wildcard.getSuperBound(), result);
        }
      }
      default -> { }
    }
  }
}
