package com.example.shop;

/** The only source of its compilation: nothing in the first round carries an idem annotation. */
public final class Unannotated {}
