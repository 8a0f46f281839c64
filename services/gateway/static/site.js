import{e as a}from"./chunks/chunk-XN62K4CY.js";a();
