import{e as a}from"./chunks/chunk-WJA4UISY.js";a();
