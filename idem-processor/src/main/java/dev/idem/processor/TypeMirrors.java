package dev.idem.processor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.Types;

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
          for (TypeMirror argument : declared.getTypeArguments()) { // no lambda to link in each cold compile
            collect(argument, result);
          }
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

  /**
   * The qualified names of the erased type and of all its supertypes. A declared type is assignable to a class or
   * interface exactly when that one's name is among them, so a validator that asks whether a type is one of a list
   * of JDK types (a stream, a sorted set) compares names instead of looking up and completing each JDK type and
   * checking assignability against it, for every method.
   */
  static Set<String> supertypeNames(Types types, TypeMirror type) {
    Set<String> names = new HashSet<>();
    Deque<TypeMirror> pending = new ArrayDeque<>();
    pending.push(types.erasure(type));
    while (!pending.isEmpty()) {
      TypeMirror current = pending.pop();
      if (current.getKind() == TypeKind.DECLARED
          && names.add(((TypeElement) ((DeclaredType) current).asElement()).getQualifiedName().toString())) {
        pending.addAll(types.directSupertypes(current));
      }
    }
    return names;
  }
}
